import { Injectable } from '@nestjs/common';

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
