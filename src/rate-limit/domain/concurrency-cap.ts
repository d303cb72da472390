import { RATE_LIMITED } from '../../errors/domain/error-code';
import { RateLimitRejection } from './rate-limit.errors';

/**
 * Requests an account may have in flight at once, by plan; an address counts
 * as `free`. Enterprise accounts' own numbers are per minute and per day
 * only: their cap is the plan's, which RATE_LIMIT_PLANS can raise.
 */
export const DEFAULT_CONCURRENCY_CAPS: Readonly<Record<string, number>> = {
  free: 5,
  pro: 20,
  business: 50,
  enterprise: 100,
};

/** A place frees as soon as a request in flight is answered, which is usually well within a second. */
export const CONCURRENCY_RETRY_AFTER_SECONDS = 1;

export class TooManyInFlightError extends RateLimitRejection {
  readonly code = RATE_LIMITED;

  constructor(cap: number) {
    super(
      `Too many requests in flight: at most ${cap} at once; retry after ${CONCURRENCY_RETRY_AFTER_SECONDS} s (Retry-After)`,
      CONCURRENCY_RETRY_AFTER_SECONDS,
    );
  }
}
