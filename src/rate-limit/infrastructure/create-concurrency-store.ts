import type { AppConfig } from '../../config/app-config';
import type { Clock } from '../../config/clock';
import type { ConcurrencyStore } from '../domain/concurrency-store';
import { type ClosableRateLimitStore, isSharedStore } from './create-rate-limit-store';
import { MemoryConcurrencyStore } from './memory-concurrency.store';
import type { RedisRateLimitStore } from './redis-rate-limit.store';

/** The places in flight beside the counters: in Redis, on their connection, when the counters are shared; else in memory. */
export function createConcurrencyStore(counters: ClosableRateLimitStore, clock: Clock, config: AppConfig): ConcurrencyStore {
  if (!isSharedStore(counters)) return new MemoryConcurrencyStore();
  // Loaded only when configured, as the counters' Redis store is.
  const { RedisConcurrencyStore } = require('./redis-concurrency.store') as typeof import('./redis-concurrency.store');
  return new RedisConcurrencyStore(counters as RedisRateLimitStore, { keyPrefix: config.redisKeyPrefix, clock });
}
