import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import type { BanPolicy, WindowSpec } from '../src/rate-limit/domain/rate-limit-store';
import { RedisRateLimitStore, redisKey } from '../src/rate-limit/infrastructure/redis-rate-limit.store';
import { DAY, MINUTE, planWindows, T0 } from './support/rate-limit-fixtures';
import { deleteKeysUnder, describeWithRedis, randomKeyPrefix, TEST_REDIS_URL, waitUntil } from './support/test-redis';
import { freePort } from './support/ports';

const FREE_PLAN = planWindows(60, 1_000);
const POLICY: BanPolicy = { banAfterRejections: 30, banMs: 900_000 };

/** A logger that remembers, so a spec can count what was said. */
function recordingLogger() {
  const lines = { warn: [] as string[], log: [] as string[] };
  return { lines, logger: { warn: (m: string) => lines.warn.push(m), log: (m: string) => lines.log.push(m) } };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeWithRedis('RedisRateLimitStore', () => {
  const keyPrefix = randomKeyPrefix();
  const stores: RedisRateLimitStore[] = [];
  const open = (options: Partial<ConstructorParameters<typeof RedisRateLimitStore>[0]> = {}) => {
    const store = new RedisRateLimitStore({ url: TEST_REDIS_URL, keyPrefix, commandTimeoutMs: 5_000, logger: recordingLogger().logger, ...options });
    stores.push(store);
    return store;
  };

  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
    await deleteKeysUnder(keyPrefix);
  });

  it('accepts exactly the limit from 1,000 concurrent requests on one key through two connections', async () => {
    const a = open();
    const b = open();
    await waitUntil(() => !a.degraded && !b.degraded);
    const decisions = await Promise.all(
      Array.from({ length: 1_000 }, (_, i) => (i % 2 === 0 ? a : b).consume('crowded', FREE_PLAN, POLICY, T0)),
    );
    expect(a.degraded || b.degraded).toBe(false);
    const allowed = decisions.filter((d) => d.allowed).length;
    const limited = decisions.filter((d) => !d.allowed && !d.banned).length;
    const banned = decisions.filter((d) => d.banned).length;
    expect({ allowed, rejected: 1_000 - allowed }).toEqual({ allowed: 60, rejected: 940 });
    // The 31st rejection goes over BAN_AFTER_REJECTIONS = 30 and starts the ban.
    expect({ limited, banned }).toEqual({ limited: 30, banned: 910 });
  });

  it('counts none of 1,000 concurrent peeks on one key through two connections, among which 60 requests of 100 get in', async () => {
    const a = open();
    const b = open();
    await waitUntil(() => !a.degraded && !b.degraded);
    const answers = await Promise.all(
      Array.from({ length: 1_100 }, async (_, i) => {
        const store = i % 2 === 0 ? a : b;
        // Every eleventh call is a request, the others peeks, all in flight at once.
        if (i % 11 === 0) return ['consume', await store.consume('peeked', FREE_PLAN, POLICY, T0)] as const;
        return ['peek', await store.peek('peeked', FREE_PLAN, POLICY, T0)] as const;
      }),
    );
    expect(a.degraded || b.degraded).toBe(false);
    const consumed = answers.filter(([operation]) => operation === 'consume').map(([, d]) => d);
    const peeked = answers.filter(([operation]) => operation === 'peek').map(([, d]) => d);
    expect({ consumed: consumed.length, accepted: consumed.filter((d) => d.allowed).length }).toEqual({ consumed: 100, accepted: 60 });
    expect(peeked).toHaveLength(1_000);
    // Peeks read the counts at their moment, and none of them tallied a rejection: 40 refusals ban at the 31st.
    expect(peeked.every((d) => d.binding.remaining >= 0 && d.binding.remaining <= 60)).toBe(true);
    expect(consumed.filter((d) => d.banned)).toHaveLength(10);
    const redis = new Redis(TEST_REDIS_URL);
    try {
      expect(await redis.hget(redisKey(keyPrefix, 'peeked'), 'minute:count')).toBe('60');
    } finally {
      redis.disconnect();
    }
  });

  it('writes nothing for a peek: a key only peeked at has no hash, and a counted one keeps its expiry', async () => {
    const store = open();
    await waitUntil(() => !store.degraded);
    const redis = new Redis(TEST_REDIS_URL);
    try {
      await expect(store.peek('only-peeked', FREE_PLAN, POLICY, T0, 'key:1')).resolves.toMatchObject({ allowed: true, binding: { remaining: 60 } });
      expect(await redis.keys(`${keyPrefix}*only-peeked*`)).toEqual([]);
      await store.consume('counted', FREE_PLAN, POLICY, Date.now());
      const ttl = await redis.pttl(redisKey(keyPrefix, 'counted'));
      await store.peek('counted', FREE_PLAN, POLICY, Date.now() + 60_000);
      expect(await redis.pttl(redisKey(keyPrefix, 'counted'))).toBeLessThanOrEqual(ttl);
    } finally {
      redis.disconnect();
    }
  });

  it('lets an idle key expire from Redis once its windows and ban have ended', async () => {
    const store = open();
    await waitUntil(() => !store.degraded);
    const redis = new Redis(TEST_REDIS_URL);
    try {
      await store.consume('idle', FREE_PLAN, POLICY, T0 + 1_000);
      const ttl = await redis.pttl(redisKey(keyPrefix, 'idle'));
      expect(ttl).toBeGreaterThan(DAY - 10_000);
      expect(ttl).toBeLessThanOrEqual(DAY);

      const longBan: BanPolicy = { banAfterRejections: 0, banMs: 2 * DAY };
      await store.consume('banned', [{ name: 'minute', limit: 0, durationMs: MINUTE }], longBan, T0);
      const banTtl = await redis.pttl(redisKey(keyPrefix, 'banned'));
      expect(banTtl).toBeGreaterThan(2 * DAY - 10_000);
      expect(banTtl).toBeLessThanOrEqual(2 * DAY);
    } finally {
      redis.disconnect();
    }
  });

  it('answers from memory when Redis cannot be reached, warning once and never naming the key', async () => {
    const { lines, logger } = recordingLogger();
    const store = open({ url: 'redis://127.0.0.1:1', commandTimeoutMs: 250, logger });
    const oneAMinute: WindowSpec[] = [{ name: 'minute', limit: 1, durationMs: MINUTE }];

    await expect(store.consume('secret-key-id', oneAMinute, POLICY, T0)).resolves.toMatchObject({ allowed: true });
    await expect(store.consume('secret-key-id', oneAMinute, POLICY, T0)).resolves.toMatchObject({ allowed: false, retryAfterSeconds: 60 });
    await expect(store.peek('secret-key-id', oneAMinute, POLICY, T0)).resolves.toMatchObject({ allowed: false, retryAfterSeconds: 60 });
    await waitUntil(() => lines.warn.length > 0);
    // Let ioredis fail a few more reconnects: still one warning.
    await pause(500);
    await expect(store.consume('secret-key-id', oneAMinute, POLICY, T0 + MINUTE)).resolves.toMatchObject({ allowed: true });
    expect(store.degraded).toBe(true);
    expect(lines.warn).toHaveLength(1);
    expect(lines.warn[0]).toMatch(/degraded, fail-open to per-instance limits/);
    expect(lines.warn[0]).not.toContain('secret-key-id');
    expect(lines.log).toEqual([]);
  });

  describe('when its Redis stops and comes back', () => {
    let server: OwnRedisServer;
    beforeAll(async () => {
      server = await OwnRedisServer.start();
    });
    afterAll(() => server?.dispose());

    it('falls back to memory, then uses the shared counters again by itself', async () => {
      const watched = recordingLogger();
      const a = open({ url: server.url, logger: watched.logger, commandTimeoutMs: 1_000 });
      const b = open({ url: server.url, commandTimeoutMs: 1_000 });
      const oneAMinute: WindowSpec[] = [{ name: 'minute', limit: 1, durationMs: MINUTE }];
      await waitUntil(() => !a.degraded && !b.degraded);

      // Shared: what A counted, B refuses.
      await expect(a.consume('k', oneAMinute, POLICY, T0)).resolves.toMatchObject({ allowed: true });
      await expect(b.consume('k', oneAMinute, POLICY, T0)).resolves.toMatchObject({ allowed: false });

      await server.stop();
      await waitUntil(() => watched.lines.warn.length > 0);
      // A's own memory has counted nothing for this key yet.
      await expect(a.consume('k', oneAMinute, POLICY, T0)).resolves.toMatchObject({ allowed: true });
      await expect(a.consume('k', oneAMinute, POLICY, T0)).resolves.toMatchObject({ allowed: false });
      expect(a.degraded).toBe(true);

      await server.start();
      await waitUntil(() => !a.degraded && !b.degraded);
      expect(watched.lines.warn).toHaveLength(1);
      expect(watched.lines.log).toHaveLength(1);
      expect(watched.lines.log[0]).toMatch(/Redis answers again/);

      // The restarted server kept nothing; the two share its counters again.
      await expect(a.consume('k2', oneAMinute, POLICY, T0)).resolves.toMatchObject({ allowed: true });
      await expect(b.consume('k2', oneAMinute, POLICY, T0)).resolves.toMatchObject({ allowed: false });
    });
  });
});

/** A throwaway redis-server on a free port, stopped by its pid. */
class OwnRedisServer {
  private pid: number | undefined;

  private constructor(
    private readonly port: number,
    private readonly dir: string,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(): Promise<OwnRedisServer> {
    const server = new OwnRedisServer(await freePort(), mkdtempSync(join(tmpdir(), 'animal-store-redis-')));
    await server.start();
    return server;
  }

  async start(): Promise<void> {
    const pidfile = join(this.dir, 'redis.pid');
    rmSync(pidfile, { force: true });
    const started = spawnSync(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'yes', '--pidfile', pidfile, '--dir', this.dir],
      { stdio: 'pipe', timeout: 10_000 },
    );
    if (started.status !== 0) throw new Error(`redis-server did not start: ${started.stderr.toString()}`);
    await waitUntil(() => {
      try {
        this.pid = Number(readFileSync(pidfile, 'utf8').trim());
        return this.pid > 0;
      } catch {
        return false;
      }
    });
  }

  async stop(): Promise<void> {
    const pid = this.pid;
    if (pid === undefined) return;
    this.pid = undefined;
    process.kill(pid, 'SIGTERM');
    await waitUntil(() => !isAlive(pid));
  }

  /** Stops the server if running and removes its folder. */
  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

