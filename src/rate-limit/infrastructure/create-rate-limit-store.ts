import type { RateLimitStore } from '../domain/rate-limit-store';
import { MemoryRateLimitStore } from './memory-rate-limit.store';
import type { RateLimitLogger, RedisClusterNode } from './redis-rate-limit.store';

/** A store the application closes at shutdown. */
export type ClosableRateLimitStore = RateLimitStore & { close(): Promise<void> };

/** A store shared by every instance, which answers only while its server does. */
export type SharedRateLimitStore = ClosableRateLimitStore & { ping(): Promise<void> };

/** Whether readiness should ask the store's server: counters in memory answer as long as the process does. */
export function isSharedStore(store: ClosableRateLimitStore): store is SharedRateLimitStore {
  return typeof (store as Partial<SharedRateLimitStore>).ping === 'function';
}

/** Where the counters live, as the configuration says. */
export interface RateLimitStoreSettings {
  /** REDIS_URL: one Redis. */
  readonly redisUrl?: string;
  /** REDIS_CLUSTER_NODES: a Redis Cluster's seed nodes. */
  readonly redisClusterNodes?: readonly RedisClusterNode[];
  readonly redisKeyPrefix?: string;
}

/** Shared counters in a Redis Cluster or one Redis when configured, else this process's memory. */
export function createRateLimitStore(settings: RateLimitStoreSettings, logger: RateLimitLogger): ClosableRateLimitStore {
  const { redisUrl, redisClusterNodes, redisKeyPrefix: keyPrefix } = settings;
  if (!redisClusterNodes && !redisUrl) return new MemoryRateLimitStore();
  // Loaded only when configured, so an instance that counts in memory carries no Redis client in its heap.
  const { RedisRateLimitStore } = require('./redis-rate-limit.store') as typeof import('./redis-rate-limit.store');
  if (redisClusterNodes) return new RedisRateLimitStore({ clusterNodes: redisClusterNodes, logger, keyPrefix });
  return new RedisRateLimitStore({ url: redisUrl, logger, keyPrefix });
}
