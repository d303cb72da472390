import { Injectable } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import { AppConfig } from '../../config/app-config';
import { Clock } from '../../config/clock';
import type { PlanLimits } from '../../callers/caller';
import { BanPolicy, BURST_GRACE_MS, RateLimitDecision, RateLimitStore, WindowSpec, WindowUse } from '../domain/rate-limit-store';

/** What the library's storage answers for one window (the package does not export the type by name). */
type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

/** How many answers a minute an account gets, 304s included, per request of its per-minute quota. */
export const ANSWERS_PER_QUOTA = 10;

/**
 * The windows of every plan for a caller's limits: the plan's minute and day,
 * which a 304 leaves alone, then `answers`, which bounds every answer other
 * than a 429 to ten times the per-minute quota. By default a request counts
 * in all three; `plan` and `answers` say how a request meets each part.
 */
export function planWindowsOf(limits: PlanLimits, plan: WindowUse = 'count', answers: WindowUse = 'count'): WindowSpec[] {
  return [
    { name: 'minute', limit: limits.perMinute, durationMs: MINUTE_MS, use: plan },
    { name: 'day', limit: limits.perDay, durationMs: DAY_MS, use: plan },
    { name: 'answers', limit: ANSWERS_PER_QUOTA * limits.perMinute, durationMs: MINUTE_MS, use: answers },
  ];
}

/**
 * @nestjs/throttler's storage: judges one request of a tracker (an account,
 * an address) against all its windows at once, on the injected clock with the
 * configured ban. The plan guard calls `consume`, which counts the request in
 * every window or, refused, in none, and `peek` for answers that spend no
 * quota; `increment` is the library's own one-window call, answered in its terms.
 */
@Injectable()
export class RateLimiter implements ThrottlerStorage {
  private readonly banPolicy: BanPolicy;

  constructor(
    private readonly store: RateLimitStore,
    private readonly clock: Clock,
    config: AppConfig,
  ) {
    this.banPolicy = { banAfterRejections: config.banAfterRejections, banMs: config.banSeconds * 1000, burstGraceMs: BURST_GRACE_MS };
  }

  /** With a `banSubject`, the tracker's windows are shared and the ban is the subject's alone. */
  consume(tracker: string, windows: readonly WindowSpec[], banSubject?: string): Promise<RateLimitDecision> {
    return this.store.consume(tracker, windows, this.banPolicy, this.clock.now(), banSubject);
  }

  /** What `consume` would answer now, counting nothing: for answers that spend no quota. */
  peek(tracker: string, windows: readonly WindowSpec[], banSubject?: string): Promise<RateLimitDecision> {
    return this.store.peek(tracker, windows, this.banPolicy, this.clock.now(), banSubject);
  }

  async increment(key: string, ttl: number, limit: number, _blockDuration: number, throttlerName: string): Promise<ThrottlerStorageRecord> {
    const decision = await this.consume(key, [{ name: throttlerName, limit, durationMs: ttl }]);
    const { binding } = decision;
    return {
      totalHits: decision.allowed ? limit - binding.remaining : limit + 1,
      timeToExpire: Math.max(0, Math.ceil((binding.resetAtMs - decision.atMs) / 1000)),
      isBlocked: !decision.allowed,
      timeToBlockExpire: decision.retryAfterSeconds,
    };
  }
}
