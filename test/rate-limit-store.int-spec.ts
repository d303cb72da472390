import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import type { BanPolicy, RateLimitDecision, WindowSpec } from '../src/rate-limit/domain/rate-limit-store';
import type { ClosableRateLimitStore } from '../src/rate-limit/infrastructure/create-rate-limit-store';
import { MemoryRateLimitStore } from '../src/rate-limit/infrastructure/memory-rate-limit.store';
import { RedisRateLimitStore } from '../src/rate-limit/infrastructure/redis-rate-limit.store';
import { DAY, MINUTE, planWindows as windows, T0 } from './support/rate-limit-fixtures';
import { isClusterToolsAvailable, LocalRedisCluster, startRedisCluster } from './support/redis-cluster';
import { deleteKeysUnder, describeWithRedis, randomKeyPrefix, TEST_REDIS_URL, waitUntil } from './support/test-redis';

/**
 * The cases every adapter must pass alike, each on its own key with a fake
 * clock: `client.now` is moved by hand and passed to the store.
 */
function rateLimitStoreContract(store: () => ClosableRateLimitStore): void {
  const client = (specs: WindowSpec[], policy: BanPolicy = { banAfterRejections: 3, banMs: 900_000 }) => {
    const key = `key-${randomBytes(6).toString('hex')}`;
    const c = {
      now: T0,
      send: async (): Promise<RateLimitDecision> => store().consume(key, specs, policy, c.now),
      peek: async (): Promise<RateLimitDecision> => store().peek(key, specs, policy, c.now),
      refund: async (counted: RateLimitDecision): Promise<void> => store().refund(key, specs, counted, c.now),
      sendMany: async (n: number): Promise<RateLimitDecision[]> => {
        const decisions: RateLimitDecision[] = [];
        for (let i = 0; i < n; i += 1) decisions.push(await c.send());
        return decisions;
      },
    };
    return c;
  };

  it('accepts a first request, starting both windows then; another key counts apart', async () => {
    const first = client(windows(5, 100));
    await expect(first.send()).resolves.toEqual({
      allowed: true,
      banned: false,
      retryAfterSeconds: 0,
      binding: { name: 'minute', limit: 5, remaining: 4, resetAtMs: T0 + MINUTE },
      windows: [
        { name: 'minute', limit: 5, durationMs: MINUTE, remaining: 4, resetAtMs: T0 + MINUTE },
        { name: 'day', limit: 100, durationMs: DAY, remaining: 99, resetAtMs: T0 + DAY },
      ],
      atMs: T0,
    });
    await first.sendMany(4);
    await expect(first.send()).resolves.toMatchObject({ allowed: false });
    await expect(client(windows(5, 100)).send()).resolves.toMatchObject({ allowed: true, binding: { remaining: 4 } });
  });

  it('takes a counted request back from the windows it counted in, leaving one that ended since alone', async () => {
    const c = client(windows(2, 100));
    const counted = await c.send();
    await c.send();
    await c.refund(counted);
    await expect(c.peek()).resolves.toMatchObject({ allowed: true, windows: [{ remaining: 1 }, { remaining: 99 }] });
    c.now = T0 + MINUTE;
    const inNewMinute = await c.send();
    await c.refund(counted);
    await expect(c.peek()).resolves.toMatchObject({ windows: [{ remaining: inNewMinute.windows[0].remaining }, { remaining: 99 }] });
  });

  it('rejects past the minute limit until that window resets, then starts a new one', async () => {
    const c = client(windows(2, 100));
    await c.sendMany(2);
    c.now += 10_000;
    await expect(c.send()).resolves.toEqual({
      allowed: false,
      banned: false,
      retryAfterSeconds: 50,
      binding: { name: 'minute', limit: 2, remaining: 0, resetAtMs: T0 + MINUTE },
      windows: [
        { name: 'minute', limit: 2, durationMs: MINUTE, remaining: 0, resetAtMs: T0 + MINUTE },
        { name: 'day', limit: 100, durationMs: DAY, remaining: 98, resetAtMs: T0 + DAY },
      ],
      atMs: T0 + 10_000,
    });
    c.now = T0 + MINUTE;
    await expect(c.send()).resolves.toEqual({
      allowed: true,
      banned: false,
      retryAfterSeconds: 0,
      binding: { name: 'minute', limit: 2, remaining: 1, resetAtMs: T0 + 2 * MINUTE },
      windows: [
        { name: 'minute', limit: 2, durationMs: MINUTE, remaining: 1, resetAtMs: T0 + 2 * MINUTE },
        { name: 'day', limit: 100, durationMs: DAY, remaining: 97, resetAtMs: T0 + DAY },
      ],
      atMs: T0 + MINUTE,
    });
  });

  it('lets a small daily quota bind before the minute, until the day resets', async () => {
    const c = client(windows(60, 2));
    await expect(c.send()).resolves.toMatchObject({ binding: { name: 'day', limit: 2, remaining: 1, resetAtMs: T0 + DAY } });
    await c.send();
    c.now += 5 * MINUTE;
    await expect(c.send()).resolves.toEqual({
      allowed: false,
      banned: false,
      retryAfterSeconds: (DAY - 5 * MINUTE) / 1000,
      binding: { name: 'day', limit: 2, remaining: 0, resetAtMs: T0 + DAY },
      windows: [
        { name: 'minute', limit: 60, durationMs: MINUTE, remaining: 60, resetAtMs: T0 + 6 * MINUTE },
        { name: 'day', limit: 2, durationMs: DAY, remaining: 0, resetAtMs: T0 + DAY },
      ],
      atMs: T0 + 5 * MINUTE,
    });
    c.now = T0 + DAY;
    await expect(c.send()).resolves.toMatchObject({ allowed: true, binding: { name: 'day', remaining: 1, resetAtMs: T0 + 2 * DAY } });
  });

  it('on a tie in remaining names the window that resets later', async () => {
    await expect(client(windows(3, 3)).send()).resolves.toMatchObject({ binding: { name: 'day', remaining: 2 } });
  });

  it('does not count rejected requests: five a day are five accepted, however many are refused', async () => {
    const c = client(windows(2, 5), { banAfterRejections: 100, banMs: 900_000 });
    const accepted: number[] = [];
    for (let minute = 0; minute < 4; minute += 1) {
      c.now = T0 + minute * MINUTE;
      const decisions = await c.sendMany(6);
      accepted.push(decisions.filter((d) => d.allowed).length);
    }
    expect(accepted).toEqual([2, 2, 1, 0]);
  });

  it('bans on the rejection that goes over the threshold; requests during the ban count nowhere; it ends', async () => {
    const c = client(windows(1, 3), { banAfterRejections: 3, banMs: 900_000 });
    await c.send();
    const limited = await c.sendMany(3);
    expect(limited.map((d) => [d.allowed, d.banned])).toEqual([
      [false, false],
      [false, false],
      [false, false],
    ]);
    c.now += 500;
    const banEnd = T0 + 500 + 900_000;
    await expect(c.send()).resolves.toEqual({
      allowed: false,
      banned: true,
      retryAfterSeconds: 900,
      binding: { name: 'minute', limit: 1, remaining: 0, resetAtMs: banEnd },
      windows: [
        { name: 'minute', limit: 1, durationMs: MINUTE, remaining: 0, resetAtMs: banEnd },
        { name: 'day', limit: 3, durationMs: DAY, remaining: 0, resetAtMs: banEnd },
      ],
      atMs: T0 + 500,
    });

    c.now = T0 + 2 * MINUTE;
    const during = await c.sendMany(5);
    // 780.5 seconds left, rounded up.
    expect(during.map((d) => [d.allowed, d.banned, d.retryAfterSeconds])).toEqual(Array(5).fill([false, true, 781]));
    c.now = banEnd - 1;
    await expect(c.send()).resolves.toMatchObject({ banned: true, retryAfterSeconds: 1 });

    c.now = banEnd;
    await expect(c.send()).resolves.toMatchObject({ allowed: true, banned: false });
    c.now = banEnd + MINUTE;
    // The third request of the day: nothing sent during the ban was counted.
    await expect(c.send()).resolves.toMatchObject({ allowed: true, binding: { name: 'day', remaining: 0 } });
  });

  it('lets a ban spend its rejections: after it a full day is rate limited again before a new ban', async () => {
    const c = client(windows(100, 1), { banAfterRejections: 2, banMs: MINUTE });
    await c.sendMany(1 + 3);
    c.now = T0 + MINUTE;
    const after = await c.sendMany(3);
    expect(after.map((d) => d.banned)).toEqual([false, false, true]);
    expect(after[0].retryAfterSeconds).toBe((DAY - MINUTE) / 1000);
  });

  /** Keys of one account: each sends with its own ban subject against the account's shared windows. */
  const account = (specs: WindowSpec[], policy: BanPolicy = { banAfterRejections: 2, banMs: 900_000 }) => {
    const tracker = `account:${randomBytes(6).toString('hex')}`;
    const a = {
      now: T0,
      send: (keyId: number): Promise<RateLimitDecision> => store().consume(tracker, specs, policy, a.now, `key:${keyId}`),
      peek: (keyId: number): Promise<RateLimitDecision> => store().peek(tracker, specs, policy, a.now, `key:${keyId}`),
      sendMany: async (keyId: number, n: number): Promise<RateLimitDecision[]> => {
        const decisions: RateLimitDecision[] = [];
        for (let i = 0; i < n; i += 1) decisions.push(await a.send(keyId));
        return decisions;
      },
    };
    return a;
  };

  it('counts the keys of one account in one shared quota; another account counts apart', async () => {
    const acme = account(windows(3, 100));
    const sent = [...(await acme.sendMany(1, 2)), ...(await acme.sendMany(2, 2))];
    expect(sent.map((d) => [d.allowed, d.binding.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    await expect(acme.send(1)).resolves.toMatchObject({ allowed: false, banned: false, retryAfterSeconds: 60 });
    await expect(account(windows(3, 100)).send(1)).resolves.toMatchObject({ allowed: true, binding: { remaining: 2 } });
  });

  it("bans one key of an account on its own rejections, while its sibling keeps the account's quota", async () => {
    const acme = account(windows(1, 100), { banAfterRejections: 2, banMs: 900_000 });
    await acme.send(1);
    const noisy = await acme.sendMany(1, 3);
    expect(noisy.map((d) => [d.allowed, d.banned])).toEqual([
      [false, false],
      [false, false],
      [false, true],
    ]);
    // The sibling is refused by the full window, not banned: the noisy key's rejections are not its.
    expect((await acme.sendMany(2, 2)).map((d) => [d.allowed, d.banned])).toEqual([
      [false, false],
      [false, false],
    ]);
    acme.now = T0 + MINUTE;
    await expect(acme.send(2)).resolves.toMatchObject({ allowed: true, banned: false });
    await expect(acme.send(1)).resolves.toMatchObject({ allowed: false, banned: true, retryAfterSeconds: 840 });
    // Nothing the banned key sent was counted: the sibling's request above was the new minute's only one.
    acme.now = T0 + 2 * MINUTE;
    await expect(acme.send(2)).resolves.toMatchObject({
      allowed: true,
      windows: [
        { name: 'minute', remaining: 0 },
        { name: 'day', remaining: 97 },
      ],
    });
  });

  it("tallies no refusal of a burst, the key's first refused second, and bans a key that keeps sending after it", async () => {
    const burst = { banAfterRejections: 2, banMs: 900_000, burstGraceMs: 1_000 };
    const acme = account(windows(1, 100), burst);
    await acme.send(1);
    acme.now = T0 + 10_000;
    const refusals = [...(await acme.sendMany(1, 30))];
    acme.now = T0 + 10_999;
    refusals.push(...(await acme.sendMany(1, 30)));
    expect(refusals.every((d) => !d.allowed && !d.banned && d.retryAfterSeconds >= 50)).toBe(true);
    // The sibling's episode is its own: its first refusal, a second after the first key's, starts a burst of its own.
    acme.now = T0 + 11_000;
    expect((await acme.sendMany(2, 5)).map((d) => d.banned)).toEqual([false, false, false, false, false]);
    expect((await acme.sendMany(1, 3)).map((d) => d.banned)).toEqual([false, false, true]);
    // The next accepted request ends the sibling's episode: a new one, a minute on, starts with a burst again.
    acme.now = T0 + MINUTE;
    await expect(acme.send(2)).resolves.toMatchObject({ allowed: true });
    acme.now = T0 + MINUTE + 30_000;
    expect((await acme.sendMany(2, 10)).map((d) => d.banned)).toEqual(Array(10).fill(false));
    acme.now = T0 + MINUTE + 31_000;
    expect((await acme.sendMany(2, 3)).map((d) => d.banned)).toEqual([false, false, true]);
  });

  it("lets a key's rejections lapse with the shared window they were made in", async () => {
    const acme = account(windows(1, 100), { banAfterRejections: 2, banMs: 900_000 });
    await acme.send(2);
    await acme.sendMany(1, 2);
    acme.now = T0 + MINUTE;
    await acme.send(2);
    // Two rejections in the new window are within the threshold again: the old window's two are gone.
    expect((await acme.sendMany(1, 2)).map((d) => d.banned)).toEqual([false, false]);
  });

  it('peeks at a key never seen as its whole quota, and at a counted key as its last request left it, counting nothing', async () => {
    const c = client(windows(5, 100));
    await expect(c.peek()).resolves.toEqual({
      allowed: true,
      banned: false,
      retryAfterSeconds: 0,
      binding: { name: 'minute', limit: 5, remaining: 5, resetAtMs: T0 + MINUTE },
      windows: [
        { name: 'minute', limit: 5, durationMs: MINUTE, remaining: 5, resetAtMs: T0 + MINUTE },
        { name: 'day', limit: 100, durationMs: DAY, remaining: 100, resetAtMs: T0 + DAY },
      ],
      atMs: T0,
    });
    c.now += 1_000;
    const sent = await c.sendMany(2);
    c.now += 1_000;
    await expect(c.peek()).resolves.toEqual({ ...sent[1], atMs: T0 + 2_000 });
    // The window started at the first request, not at the peek before it, and the peeks counted nowhere.
    await expect(c.send()).resolves.toMatchObject({ binding: { name: 'minute', remaining: 2, resetAtMs: T0 + 1_000 + MINUTE } });
  });

  it('peeks at a full window as refused, with its Retry-After, and never tallies a rejection toward a ban', async () => {
    const c = client(windows(2, 100), { banAfterRejections: 1, banMs: 900_000 });
    await c.sendMany(2);
    c.now += 10_000;
    for (let i = 0; i < 5; i += 1) {
      await expect(c.peek()).resolves.toEqual({
        allowed: false,
        banned: false,
        retryAfterSeconds: 50,
        binding: { name: 'minute', limit: 2, remaining: 0, resetAtMs: T0 + MINUTE },
        windows: [
          { name: 'minute', limit: 2, durationMs: MINUTE, remaining: 0, resetAtMs: T0 + MINUTE },
          { name: 'day', limit: 100, durationMs: DAY, remaining: 98, resetAtMs: T0 + DAY },
        ],
        atMs: T0 + 10_000,
      });
    }
    // One refused request is within the threshold of one; the second goes over it.
    expect((await c.sendMany(2)).map((d) => d.banned)).toEqual([false, true]);
  });

  it('peeks at a banned key as banned until the ban ends, without lengthening it', async () => {
    const c = client(windows(1, 100), { banAfterRejections: 0, banMs: 900_000 });
    await c.sendMany(2);
    c.now = T0 + MINUTE;
    await expect(c.peek()).resolves.toMatchObject({ allowed: false, banned: true, retryAfterSeconds: 840, binding: { remaining: 0, resetAtMs: T0 + 900_000 } });
    c.now = T0 + 900_000;
    await expect(c.peek()).resolves.toMatchObject({ allowed: true, banned: false });
  });

  it("peeks at an account's shared quota with each key's own ban", async () => {
    const acme = account(windows(1, 100), { banAfterRejections: 1, banMs: 900_000 });
    await expect(acme.peek(1)).resolves.toMatchObject({ allowed: true, binding: { remaining: 1 } });
    await acme.sendMany(1, 3);
    await expect(acme.peek(1)).resolves.toMatchObject({ allowed: false, banned: true, retryAfterSeconds: 900 });
    await expect(acme.peek(2)).resolves.toMatchObject({ allowed: false, banned: false, retryAfterSeconds: 60, binding: { remaining: 0 } });
    acme.now = T0 + MINUTE;
    await expect(acme.peek(2)).resolves.toMatchObject({ allowed: true, binding: { name: 'minute', remaining: 1 } });
    await expect(acme.send(2)).resolves.toMatchObject({ allowed: true, windows: [{ remaining: 0 }, { remaining: 98 }] });
  });

  it("counts a request in its own windows only, leaving the key's others as they were (a route's own bucket)", async () => {
    const policy = { banAfterRejections: 3, banMs: 900_000 };
    const own: WindowSpec[] = [{ name: 'minute@Things.scarce', limit: 2, durationMs: MINUTE }];
    for (const banSubject of [undefined, 'key:1']) {
      const key = `key-${randomBytes(6).toString('hex')}`;
      await store().consume(key, windows(5, 100), policy, T0, banSubject);
      await store().consume(key, own, policy, T0 + 1_000, banSubject);
      await expect(store().consume(key, windows(5, 100), policy, T0 + 2_000, banSubject)).resolves.toMatchObject({
        windows: [
          { name: 'minute', remaining: 3, resetAtMs: T0 + MINUTE },
          { name: 'day', remaining: 98, resetAtMs: T0 + DAY },
        ],
      });
      await expect(store().peek(key, own, policy, T0 + 3_000, banSubject)).resolves.toMatchObject({
        binding: { remaining: 1, resetAtMs: T0 + 1_000 + MINUTE },
      });
    }
  });

  it('counts a request only in the windows it is counted in: judged against a window, it needs room there; reported, it needs none', async () => {
    const key = `key-${randomBytes(6).toString('hex')}`;
    const send = (planUse: WindowSpec['use'], answersUse: WindowSpec['use']) =>
      store().consume(
        key,
        [...windows(2, 100).map((window) => ({ ...window, use: planUse })), { name: 'answers', limit: 2, durationMs: MINUTE, use: answersUse }],
        { banAfterRejections: 1, banMs: 900_000 },
        T0,
      );
    const remaining = (decision: RateLimitDecision) => decision.windows.map((window) => window.remaining);
    // A 304: judged against the plan, counted in answers.
    expect(remaining(await send('check', 'count'))).toEqual([2, 100, 1]);
    // What an answer other than a 304 then pays: the plan, with answers only reported.
    expect(remaining(await send('count', 'report'))).toEqual([1, 99, 1]);
    expect(remaining(await send('check', 'count'))).toEqual([1, 99, 0]);
    // Full answers, only reported, refuse nothing.
    await expect(send('count', 'report')).resolves.toMatchObject({ allowed: true, windows: [{ remaining: 0 }, { remaining: 98 }, { remaining: 0 }] });
    // Counted in full answers, a request is refused; the full minute, only reported, tallies no rejection.
    await expect(send('report', 'count')).resolves.toMatchObject({ allowed: false, banned: false, retryAfterSeconds: 60 });
    // Judged against both full windows: the second rejection in answers goes over the threshold of one.
    await expect(send('check', 'count')).resolves.toMatchObject({ allowed: false, banned: true });
  });

  it('rounds Retry-After up to whole seconds and never answers 0', async () => {
    const c = client(windows(1, 100), { banAfterRejections: 100, banMs: 900_000 });
    await c.send();
    c.now = T0 + 58_001;
    await expect(c.send()).resolves.toMatchObject({ retryAfterSeconds: 2 });
    c.now = T0 + 59_999;
    await expect(c.send()).resolves.toMatchObject({ retryAfterSeconds: 1 });
  });
}

describe('RateLimitStore contract [memory]', () => {
  const store = new MemoryRateLimitStore();
  afterAll(() => store.close());
  rateLimitStoreContract(() => store);
});

describeWithRedis('RateLimitStore contract', () => {
  const keyPrefix = randomKeyPrefix();
  const warnings: string[] = [];
  let store: RedisRateLimitStore;

  beforeAll(async () => {
    store = new RedisRateLimitStore({
      url: TEST_REDIS_URL,
      keyPrefix,
      commandTimeoutMs: 5_000,
      logger: { warn: (message) => warnings.push(message), log: () => undefined },
    });
    await waitUntil(() => !store.degraded);
  });

  afterAll(async () => {
    await store.close();
    await deleteKeysUnder(keyPrefix);
  });

  // Every answer must come from Redis: a silent fall back to memory would pass the cases too.
  afterEach(() => {
    expect(warnings).toEqual([]);
    expect(store.degraded).toBe(false);
  });

  rateLimitStoreContract(() => store);

  it("keeps an account's counts and a key's ban in two hashes tagged by the account, so one cluster slot holds both", async () => {
    await store.consume('account:tagged', windows(5, 100), { banAfterRejections: 3, banMs: 1_000 }, Date.now(), 'key:3');
    const redis = new Redis(TEST_REDIS_URL);
    try {
      expect((await redis.keys(`${keyPrefix}*tagged*`)).sort()).toEqual([`${keyPrefix}{account:tagged}`, `${keyPrefix}{account:tagged}:key:3`]);
      expect(await redis.hget(`${keyPrefix}{account:tagged}`, 'minute:count')).toBe('1');
      expect(await redis.hget(`${keyPrefix}{account:tagged}:key:3`, 'minute:count')).toBe('0');
    } finally {
      redis.disconnect();
    }
  });

  it("never shortens a key's hashes to a route's shorter window: the day's count and rejections outlive it", async () => {
    const policy = { banAfterRejections: 3, banMs: 1_000 };
    const now = Date.now();
    await store.consume('account:lasting', windows(5, 100), policy, now, 'key:4');
    await store.consume('account:lasting', [{ name: 'minute@Things.scarce', limit: 2, durationMs: MINUTE }], policy, now, 'key:4');
    const redis = new Redis(TEST_REDIS_URL);
    try {
      for (const hash of [`${keyPrefix}{account:lasting}`, `${keyPrefix}{account:lasting}:key:4`]) {
        expect(await redis.pttl(hash)).toBeGreaterThan(DAY - MINUTE);
      }
    } finally {
      redis.disconnect();
    }
  });
});

/** The same cases on a Redis Cluster: each script's keys must lie in one slot, or the cluster refuses the call. */
(isClusterToolsAvailable() ? describe : describe.skip)('RateLimitStore contract [redis cluster]', () => {
  const warnings: string[] = [];
  let cluster: LocalRedisCluster | undefined;
  let store: RedisRateLimitStore;

  beforeAll(async () => {
    cluster = await startRedisCluster();
    store = new RedisRateLimitStore({
      clusterNodes: cluster.ports.map((port) => ({ host: '127.0.0.1', port })),
      keyPrefix: randomKeyPrefix(),
      commandTimeoutMs: 5_000,
      logger: { warn: (message) => warnings.push(message), log: () => undefined },
    });
    await waitUntil(() => !store.degraded, 30_000);
    // While a new cluster settles, ioredis may drop and reopen its first connection: the cases start once it answers.
    warnings.length = 0;
  }, 120_000);

  afterAll(async () => {
    await store?.close();
    await cluster?.stop();
  });

  afterEach(() => {
    expect(warnings).toEqual([]);
    expect(store.degraded).toBe(false);
  });

  rateLimitStoreContract(() => store);
});
