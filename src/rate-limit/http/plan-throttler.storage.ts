import { Injectable } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import { Clock } from '../../config/clock';
import { RateLimiter } from '../application/rate-limiter';
import type { RateLimitDecision, WindowSpec } from '../domain/rate-limit-store';

/** What the library's storage answers for one window (the package does not export the type by name). */
type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/**
 * @nestjs/throttler's storage, backed by our RateLimitStore (memory or
 * Redis). The library's `increment` counts one window per call; the plan
 * guard calls `consume` instead, which judges every window of a request in
 * one atomic step, so that a request refused by one window uses no quota in
 * another.
 */
@Injectable()
export class PlanThrottlerStorage implements ThrottlerStorage {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly clock: Clock,
  ) {}

  /** All of a request's windows at once: the record of `tracker` holds one bucket per window name; the ban is `banSubject`'s. */
  consume(tracker: string, windows: readonly WindowSpec[], banSubject?: string): Promise<RateLimitDecision> {
    return this.limiter.consume(tracker, windows, banSubject);
  }

  /** One window on its own, as the library's guard asks for it; `key` is the whole record. */
  async increment(key: string, ttl: number, limit: number, _blockDuration: number, throttlerName: string): Promise<ThrottlerStorageRecord> {
    const decision = await this.consume(key, [{ name: throttlerName, limit, durationMs: ttl }]);
    const { binding } = decision;
    return {
      totalHits: decision.allowed ? limit - binding.remaining : limit + 1,
      timeToExpire: Math.max(0, Math.ceil((binding.resetAtMs - this.clock.now()) / 1000)),
      isBlocked: !decision.allowed,
      timeToBlockExpire: decision.retryAfterSeconds,
    };
  }
}
