import { type ClosableRateLimitStore, createRateLimitStore, isSharedStore } from './create-rate-limit-store';
import { MemoryRateLimitStore } from './memory-rate-limit.store';
import { RedisRateLimitStore } from './redis-rate-limit.store';

describe('createRateLimitStore', () => {
  const logger = { warn: jest.fn(), log: jest.fn() };

  it('keeps counters in memory when no Redis is configured', async () => {
    const store = createRateLimitStore({}, logger);
    expect(store).toBeInstanceOf(MemoryRateLimitStore);
    expect(isSharedStore(store)).toBe(false);
    await store.close();
  });

  it('shares counters through Redis when REDIS_URL is set', async () => {
    const store = createRateLimitStore({ redisUrl: 'redis://127.0.0.1:1' }, logger);
    expect(store).toBeInstanceOf(RedisRateLimitStore);
    expect(isSharedStore(store)).toBe(true);
    await store.close();
  });

  it('shares counters through a Redis Cluster when REDIS_CLUSTER_NODES is set', async () => {
    const store = createRateLimitStore({ redisClusterNodes: [{ host: '127.0.0.1', port: 1 }] }, logger);
    expect(store).toBeInstanceOf(RedisRateLimitStore);
    expect(isSharedStore(store)).toBe(true);
    await store.close();
  });

  it('loads the Redis client only when Redis is configured', async () => {
    const loaded: string[] = [];
    const stores: ClosableRateLimitStore[] = [];
    jest.isolateModules(() => {
      jest.doMock('ioredis', () => {
        loaded.push('ioredis');
        return jest.requireActual('ioredis');
      });
      const { createRateLimitStore: create } = require('./create-rate-limit-store') as typeof import('./create-rate-limit-store');
      stores.push(create({}, logger));
      expect(loaded).toEqual([]);
      stores.push(create({ redisUrl: 'redis://127.0.0.1:1' }, logger));
      expect(loaded).toEqual(['ioredis']);
    });
    await Promise.all(stores.map((store) => store.close()));
  });
});
