import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import type { Caller } from '../../http/caller';
import { ConcurrencyStore, type InFlightSlot } from '../domain/concurrency-store';
import { DEFAULT_CONCURRENCY_CAPS, TooManyInFlightError } from '../domain/concurrency-cap';
import type { WindowSpec } from '../domain/rate-limit-store';
import { ApiKeyBannedError } from '../domain/rate-limit.errors';
import { RateLimiter } from './rate-limiter';

/**
 * Where a refusal over the cap is tallied toward the ban: a window that holds
 * no request (its limit is 0), so every consume in it is a rejection, tallied
 * and banned on as a full window's are.
 */
export const CONCURRENCY_REFUSALS_WINDOW: WindowSpec = { name: 'concurrency', limit: 0, durationMs: 60_000 };

/**
 * The concurrency cap: how many requests a tracker (an account, an address)
 * may have in flight at once, and the places they hold in the store.
 */
@Injectable()
export class ConcurrencyLimiter {
  private readonly caps: Readonly<Record<string, number>>;

  constructor(
    private readonly store: ConcurrencyStore,
    private readonly limiter: RateLimiter,
    config: AppConfig,
  ) {
    this.caps = { ...DEFAULT_CONCURRENCY_CAPS, ...config.planConcurrency };
  }

  /** The cap of the caller's plan; an address has the free plan's. */
  capOf(caller: Caller): number {
    return (caller.kind === 'key' ? this.caps[caller.plan] : undefined) ?? this.caps.free;
  }

  /**
   * A place among the tracker's requests in flight, or the refusal: the cap
   * is held. The refusal counts toward the ban subject's ban as a rate
   * limit's refusals do, and is the ban when it starts one.
   */
  async acquire(tracker: string, cap: number, banSubject?: string): Promise<InFlightSlot> {
    const slot = await this.store.acquire(tracker, cap);
    if (slot) return slot;
    const tally = await this.limiter.consume(tracker, [CONCURRENCY_REFUSALS_WINDOW], banSubject);
    throw tally.banned ? new ApiKeyBannedError(tally.retryAfterSeconds) : new TooManyInFlightError(cap);
  }
}
