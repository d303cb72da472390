import { Injectable } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import { RateLimiter } from '../application/rate-limiter';

/** What the library's storage answers for one window (the package does not export the type by name). */
type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/**
 * @nestjs/throttler's storage on our counters: the library's own one-window
 * `increment`, answered in its terms, so that whatever the library counts
 * itself counts in our store. PlanThrottlerGuard judges through the limiter.
 */
@Injectable()
export class LimiterThrottlerStorage implements ThrottlerStorage {
  constructor(private readonly limiter: RateLimiter) {}

  async increment(key: string, ttl: number, limit: number, _blockDuration: number, throttlerName: string): Promise<ThrottlerStorageRecord> {
    const decision = await this.limiter.consume(key, [{ name: throttlerName, limit, durationMs: ttl }]);
    const { binding } = decision;
    return {
      totalHits: decision.allowed ? limit - binding.remaining : limit + 1,
      timeToExpire: Math.max(0, Math.ceil((binding.resetAtMs - decision.atMs) / 1000)),
      isBlocked: !decision.allowed,
      timeToBlockExpire: decision.retryAfterSeconds,
    };
  }
}
