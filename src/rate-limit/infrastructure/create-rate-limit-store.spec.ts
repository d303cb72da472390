import { createRateLimitStore } from './create-rate-limit-store';
import { MemoryRateLimitStore } from './memory-rate-limit.store';
import { RedisRateLimitStore } from './redis-rate-limit.store';

describe('createRateLimitStore', () => {
  const logger = { warn: jest.fn(), log: jest.fn() };

  it('keeps counters in memory when no Redis is configured', async () => {
    const store = createRateLimitStore({}, logger);
    expect(store).toBeInstanceOf(MemoryRateLimitStore);
    await store.close();
  });

  it('shares counters through Redis when REDIS_URL is set', async () => {
    const store = createRateLimitStore({ redisUrl: 'redis://127.0.0.1:1' }, logger);
    expect(store).toBeInstanceOf(RedisRateLimitStore);
    await store.close();
  });

  it('shares counters through a Redis Cluster when REDIS_CLUSTER_NODES is set', async () => {
    const store = createRateLimitStore({ redisClusterNodes: [{ host: '127.0.0.1', port: 1 }] }, logger);
    expect(store).toBeInstanceOf(RedisRateLimitStore);
    await store.close();
  });
});
