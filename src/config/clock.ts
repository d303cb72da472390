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

/** A call repeated on a clock: `stop()` cancels the next one and waits for one under way. */
export interface Repeating {
  stop(): Promise<void>;
}

/**
 * Runs `work` every `intervalMs` of `clock`, the next run counted from the end
 * of the last, so runs never overlap however long one takes.
 */
export function repeatEvery(clock: Clock, intervalMs: number, work: () => Promise<void>): Repeating {
  let cancel: () => void = () => undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  const scheduleNext = () => {
    cancel = clock.schedule(() => {
      running = work().finally(() => {
        running = undefined;
        if (!stopped) scheduleNext();
      });
    }, intervalMs);
  };
  scheduleNext();
  return {
    stop: async () => {
      stopped = true;
      cancel();
      await running;
    },
  };
}
