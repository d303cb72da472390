import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import type { Caller } from '../../callers/caller';
import { ConcurrencyStore, type InFlightSlot } from '../domain/concurrency-store';
import { DEFAULT_CONCURRENCY_CAPS, TooManyInFlightError } from '../domain/concurrency-cap';

/**
 * The concurrency cap: how many requests a tracker (an account, an address)
 * may have in flight at once, and the places they hold in the store.
 */
@Injectable()
export class ConcurrencyLimiter {
  private readonly caps: Readonly<Record<string, number>>;

  constructor(
    private readonly store: ConcurrencyStore,
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
   * is held. The refusal counts toward no ban: requests sent at once are a
   * burst, which a client that waits a second for a place has done nothing wrong by.
   */
  async acquire(tracker: string, cap: number): Promise<InFlightSlot> {
    const slot = await this.store.acquire(tracker, cap);
    if (slot) return slot;
    throw new TooManyInFlightError(cap);
  }
}
