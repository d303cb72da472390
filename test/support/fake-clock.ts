import { Clock } from '../../src/config/clock';

/** A clock that stands still until a spec moves it; given to the app through DI in place of the system clock. */
export class FakeClock extends Clock {
  constructor(private time: number) {
    super();
  }

  now(): number {
    return this.time;
  }

  advance(ms: number): void {
    this.time += ms;
  }

  set(time: number): void {
    this.time = time;
  }
}
