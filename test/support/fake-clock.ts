import { Clock } from '../../src/config/clock';

interface ScheduledCall {
  readonly at: number;
  readonly callback: () => void;
}

/**
 * A clock that stands still until a spec moves it; given to the app through DI
 * in place of the system clock. Moving it runs the calls scheduled up to the new time, earliest first.
 */
export class FakeClock extends Clock {
  private scheduled: ScheduledCall[] = [];

  constructor(private time: number) {
    super();
  }

  now(): number {
    return this.time;
  }

  schedule(callback: () => void, delayMs: number): () => void {
    const call = { at: this.time + delayMs, callback };
    this.scheduled.push(call);
    return () => {
      this.scheduled = this.scheduled.filter((scheduled) => scheduled !== call);
    };
  }

  advance(ms: number): void {
    this.set(this.time + ms);
  }

  set(time: number): void {
    this.time = time;
    const due = this.scheduled.filter((call) => call.at <= time).sort((a, b) => a.at - b.at);
    this.scheduled = this.scheduled.filter((call) => call.at > time);
    for (const call of due) call.callback();
  }
}
