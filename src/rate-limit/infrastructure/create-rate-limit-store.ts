import type { RateLimitStore } from '../domain/rate-limit-store';
import { MemoryRateLimitStore } from './memory-rate-limit.store';
import { type RateLimitLogger, RedisRateLimitStore } from './redis-rate-limit.store';

/** A store the application closes at shutdown. */
export type ClosableRateLimitStore = RateLimitStore & { close(): Promise<void> };

/** Shared counters in Redis when `redisUrl` is set (REDIS_URL), else this process's memory. */
export function createRateLimitStore(
  redisUrl: string | undefined,
  logger: RateLimitLogger,
  keyPrefix?: string,
): ClosableRateLimitStore {
  return redisUrl ? new RedisRateLimitStore({ url: redisUrl, logger, keyPrefix }) : new MemoryRateLimitStore();
}
