import { Injectable } from '@nestjs/common';
import { RetryLaterError } from '../errors/domain/domain-error';
import { SERVICE_UNAVAILABLE } from '../errors/domain/error-code';

/** A caller refused while this instance drains may come back at once: another instance, or this one restarted, takes it. */
export const DRAINING_RETRY_AFTER_SECONDS = 1;

export class ShuttingDownError extends RetryLaterError {
  readonly code = SERVICE_UNAVAILABLE;

  constructor() {
    super('The service is shutting down; retry after the time given in Retry-After', DRAINING_RETRY_AFTER_SECONDS);
  }
}

/**
 * Counts the requests the app has taken on, and at shutdown refuses new ones
 * while those finish. Refused requests get a 503 on a connection that is then
 * closed: the caller knows for sure the request was not processed, which a
 * reset connection would not tell.
 */
@Injectable()
export class RequestDrain {
  private draining = false;
  private inFlight = 0;
  private readonly waiters: Array<() => void> = [];

  /** Takes a request on, unless draining; every admitted request must be `release`d once. */
  admit(): boolean {
    if (this.draining) return false;
    this.inFlight++;
    return true;
  }

  release(): void {
    this.inFlight--;
    if (this.inFlight === 0) this.waiters.splice(0).forEach((wake) => wake());
  }

  /** Refuses new requests from now on; resolves once the admitted ones are done, or after `timeoutMs` (false). */
  drain(timeoutMs: number): Promise<boolean> {
    this.draining = true;
    if (this.inFlight === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }
}
