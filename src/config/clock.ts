/**
 * The one source of time: the current time (epoch milliseconds) and calls
 * made later. Provided by the global ConfigModule; tests replace it through DI
 * to move time by hand.
 */
export abstract class Clock {
  abstract now(): number;

  /** Calls `callback` once, `delayMs` from now, without holding the process open; the function returned cancels the call. */
  abstract schedule(callback: () => void, delayMs: number): () => void;
}

export class SystemClock extends Clock {
  now(): number {
    return Date.now();
  }

  schedule(callback: () => void, delayMs: number): () => void {
    const timer = setTimeout(callback, delayMs).unref();
    return () => clearTimeout(timer);
  }
}
