import { RetryLaterError } from '../errors/domain/domain-error';
import { SERVICE_UNAVAILABLE } from '../errors/domain/error-code';

/** How long a client is asked to wait before it tries again: about as long as a failover or a lock takes to pass. */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

/**
 * The database did not serve the request in time: no connection within the
 * bound, a statement stopped at its bound, or the server out of reach. What
 * the request had begun is undone, so it is safe to send again.
 */
export class DatabaseUnavailableError extends RetryLaterError {
  readonly code = SERVICE_UNAVAILABLE;

  /** `reason` is for the server's log only; the client reads the code's own message. */
  constructor(readonly reason: string) {
    super('The database is unavailable; retry after the time given in Retry-After', DATABASE_RETRY_AFTER_SECONDS);
  }
}
