import { Injectable } from '@nestjs/common';
import type { PlanLimits } from '../../auth/domain/plan';
import { AppConfig } from '../../config/app-config';
import { Clock } from '../../config/clock';
import { BanPolicy, RateLimitDecision, RateLimitStore, WindowSpec } from '../domain/rate-limit-store';

/** The two windows of every plan, by the names the throttler gives them. */
export const PLAN_WINDOWS = [
  { name: 'minute', durationMs: 60_000, limitOf: (limits: PlanLimits) => limits.perMinute },
  { name: 'day', durationMs: 86_400_000, limitOf: (limits: PlanLimits) => limits.perDay },
] as const;

/** A plan's windows as the store counts them. */
export function planWindows(limits: PlanLimits): WindowSpec[] {
  return PLAN_WINDOWS.map(({ name, durationMs, limitOf }) => ({ name, durationMs, limit: limitOf(limits) }));
}

/**
 * Judges one request of a tracker (a key, an address) against its windows,
 * all at once: it is counted in every window or, refused, in none. The ban
 * policy comes from configuration and the time from the injected clock.
 */
@Injectable()
export class RateLimiter {
  private readonly banPolicy: BanPolicy;

  constructor(
    private readonly store: RateLimitStore,
    private readonly clock: Clock,
    config: AppConfig,
  ) {
    this.banPolicy = { banAfterRejections: config.banAfterRejections, banMs: config.banSeconds * 1000 };
  }

  /** With a `banSubject`, the tracker's windows are shared and the ban is the subject's alone. */
  consume(tracker: string, windows: readonly WindowSpec[], banSubject?: string): Promise<RateLimitDecision> {
    return this.store.consume(tracker, windows, this.banPolicy, this.clock.now(), banSubject);
  }
}
