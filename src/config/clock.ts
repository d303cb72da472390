/**
 * The one source of the current time (epoch milliseconds). Provided by the
 * global ConfigModule; tests replace it through DI to move time by hand.
 */
export abstract class Clock {
  abstract now(): number;
}

export class SystemClock extends Clock {
  now(): number {
    return Date.now();
  }
}
