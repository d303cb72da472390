import type { RateLimitStore } from '../domain/rate-limit-store';
import { MemoryRateLimitStore } from './memory-rate-limit.store';
import { type RateLimitLogger, type RedisClusterNode, RedisRateLimitStore } from './redis-rate-limit.store';

/** A store the application closes at shutdown. */
export type ClosableRateLimitStore = RateLimitStore & { close(): Promise<void> };

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
  if (redisClusterNodes) return new RedisRateLimitStore({ clusterNodes: redisClusterNodes, logger, keyPrefix });
  return redisUrl ? new RedisRateLimitStore({ url: redisUrl, logger, keyPrefix }) : new MemoryRateLimitStore();
}
