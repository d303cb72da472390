import Redis, { Cluster } from 'ioredis';
import type { InFlightSlot } from '../src/rate-limit/domain/concurrency-store';
import { concurrencyRedisKey, DEFAULT_CONCURRENCY_LEASE_MS, RedisConcurrencyStore } from '../src/rate-limit/infrastructure/redis-concurrency.store';
import { redisKey, RedisRateLimitStore } from '../src/rate-limit/infrastructure/redis-rate-limit.store';
import { FakeClock } from './support/fake-clock';
import { isClusterToolsAvailable, LocalRedisCluster, startRedisCluster } from './support/redis-cluster';
import { T0 } from './support/rate-limit-fixtures';
import { waitFor } from './support/wait-for';
import { deleteKeysUnder, describeWithRedis, randomKeyPrefix, TEST_REDIS_URL, waitUntil } from './support/test-redis';

const LEASE = DEFAULT_CONCURRENCY_LEASE_MS;
/** How often an instance renews its places: five times a lease. */
const RENEWAL = LEASE / 5;
const quiet = { warn: () => undefined, log: () => undefined };

describe('concurrencyRedisKey', () => {
  it("carries the tracker's hash tag and no other, so a caller's places lie in the slot of its counters", () => {
    const set = concurrencyRedisKey('animal-store:rate-limit:', 'account:42');
    expect(set.startsWith(redisKey('animal-store:rate-limit:', 'account:42'))).toBe(true);
    expect(set.match(/\{[^}]*\}/g)).toEqual(['{account:42}']);
  });
});

describeWithRedis('RedisConcurrencyStore', () => {
  const keyPrefix = randomKeyPrefix();
  const counters: RedisRateLimitStore[] = [];
  const redis = new Redis(TEST_REDIS_URL);

  /** One instance: the counters' connection and the places on it, on a clock shared with the other instances of a test. */
  const instance = async (clock: FakeClock, url = TEST_REDIS_URL) => {
    const store = new RedisRateLimitStore({ url, keyPrefix, commandTimeoutMs: 5_000, logger: quiet });
    counters.push(store);
    if (url === TEST_REDIS_URL) await waitUntil(() => !store.degraded);
    return new RedisConcurrencyStore(store, { keyPrefix, clock });
  };
  const heldIn = (tracker: string) => redis.zcard(concurrencyRedisKey(keyPrefix, tracker));
  /** When the place renewed last lapses, epoch ms. */
  const latestLapse = async (tracker: string): Promise<number> => {
    const [, score] = await redis.zrevrange(concurrencyRedisKey(keyPrefix, tracker), 0, 0, 'WITHSCORES');
    return Number(score);
  };

  afterAll(async () => {
    await Promise.all(counters.map((store) => store.close()));
    await deleteKeysUnder(keyPrefix);
    redis.disconnect();
  });

  it('gives exactly the cap of 200 concurrent requests through two instances, and none once they are held', async () => {
    const clock = new FakeClock(T0);
    const [a, b] = [await instance(clock), await instance(clock)];
    const slots = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? a : b).acquire('account:1', 7)));
    const held = slots.filter((slot): slot is InFlightSlot => slot !== null);
    expect(held).toHaveLength(7);
    await expect(heldIn('account:1')).resolves.toBe(7);
    await expect(b.acquire('account:1', 7)).resolves.toBeNull();

    await Promise.all(held.map((slot) => slot.release()));
    await expect(heldIn('account:1')).resolves.toBe(0);
    // The set goes with its last place.
    await expect(redis.exists(concurrencyRedisKey(keyPrefix, 'account:1'))).resolves.toBe(0);
    await Promise.all([a, b].map((store) => store.onApplicationShutdown()));
  });

  it('keeps the places of a living instance while it renews them, and drops those of one that died once their lease lapses', async () => {
    const clock = new FakeClock(T0);
    const [living, dying, other] = [await instance(clock), await instance(clock), await instance(clock)];
    const kept = await living.acquire('account:2', 2);
    const lost = await dying.acquire('account:2', 2);
    expect([kept, lost].every((slot) => slot !== null)).toBe(true);
    // An instance that dies stops renewing and never releases.
    await dying.onApplicationShutdown();

    const tick = async (atMs: number) => {
      clock.set(atMs);
      await waitFor(async () => (await latestLapse('account:2')) === atMs + LEASE, 'the renewal to land');
    };
    for (let at = T0 + RENEWAL; at < T0 + LEASE; at += RENEWAL) {
      await tick(at);
      await expect(other.acquire('account:2', 2)).resolves.toBeNull();
    }
    await tick(T0 + LEASE);
    // The dead instance's place lapsed: one place is free, and only one.
    const taken = await other.acquire('account:2', 2);
    expect(taken).not.toBeNull();
    for (let at = T0 + LEASE + RENEWAL; at <= T0 + 3 * LEASE; at += RENEWAL) {
      await tick(at);
      await expect(other.acquire('account:2', 2)).resolves.toBeNull();
    }
    await expect(heldIn('account:2')).resolves.toBe(2);
    await Promise.all([kept!.release(), taken!.release()]);
    await expect(heldIn('account:2')).resolves.toBe(0);
    await Promise.all([living, other].map((store) => store.onApplicationShutdown()));
  });

  it('takes places in memory, capped per instance, when Redis cannot be reached', async () => {
    const clock = new FakeClock(T0);
    const cut = await instance(clock, 'redis://127.0.0.1:1');
    const slots = [await cut.acquire('account:3', 2), await cut.acquire('account:3', 2)];
    expect(slots.every((slot) => slot !== null)).toBe(true);
    await expect(cut.acquire('account:3', 2)).resolves.toBeNull();
    await slots[0]!.release();
    await expect(cut.acquire('account:3', 2)).resolves.not.toBeNull();
    await expect(heldIn('account:3')).resolves.toBe(0);
  });
});

(isClusterToolsAvailable() ? describe : describe.skip)('RedisConcurrencyStore on a Redis Cluster [redis cluster]', () => {
  const keyPrefix = randomKeyPrefix();
  let cluster: LocalRedisCluster | undefined;
  let client: Cluster | undefined;
  const counters: RedisRateLimitStore[] = [];

  beforeAll(async () => {
    cluster = await startRedisCluster();
    client = new Cluster(cluster.ports.map((port) => ({ host: '127.0.0.1', port })), { redisOptions: { maxRetriesPerRequest: 1 } });
  }, 120_000);

  afterAll(async () => {
    await Promise.all(counters.map((store) => store.close()));
    client?.disconnect();
    await cluster?.stop();
  }, 60_000);

  it("gives exactly the cap of 200 concurrent requests through two instances, from a set in the slot of the account's counters", async () => {
    const nodes = (cluster as LocalRedisCluster).ports.map((port) => ({ host: '127.0.0.1', port }));
    const clock = new FakeClock(T0);
    const stores = [0, 1].map(() => {
      const store = new RedisRateLimitStore({ clusterNodes: nodes, keyPrefix, logger: quiet });
      counters.push(store);
      return store;
    });
    await waitUntil(() => stores.every((store) => !store.degraded));
    const [a, b] = stores.map((store) => new RedisConcurrencyStore(store, { keyPrefix, clock }));
    const slots = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? a : b).acquire('account:5', 7)));
    expect(slots.filter((slot) => slot !== null)).toHaveLength(7);

    const set = concurrencyRedisKey(keyPrefix, 'account:5');
    const slotOf = (key: string) => (client as Cluster).cluster('KEYSLOT', key);
    await expect(slotOf(set)).resolves.toBe(await slotOf(redisKey(keyPrefix, 'account:5')));
    await expect((client as Cluster).zcard(set)).resolves.toBe(7);
    await Promise.all(slots.map((slot) => slot?.release()));
    await expect((client as Cluster).zcard(set)).resolves.toBe(0);
    await Promise.all([a, b].map((store) => store.onApplicationShutdown()));
  }, 60_000);
});
