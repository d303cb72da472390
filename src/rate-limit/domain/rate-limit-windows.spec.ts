import { DAY, MINUTE, planWindows as windows, T0 } from '../../../test/support/rate-limit-fixtures';
import type { BanPolicy, RateLimitDecision, WindowSpec } from './rate-limit-store';
import { consumeRequest, consumeSharedRequest, forgetAtMs, peekRequest, peekSharedRequest, refundedDecision, refundRequest, secondsUntil, type StoredKeyState } from './rate-limit-windows';

/** One key driven by a fake clock: `now` is moved by hand. */
class FakeKey {
  now = T0;
  state: StoredKeyState | undefined;

  constructor(
    private readonly specs: WindowSpec[],
    private readonly policy: BanPolicy = { banAfterRejections: 3, banMs: 900_000 },
  ) {}

  send(): RateLimitDecision {
    const outcome = consumeRequest(this.state, this.specs, this.policy, this.now);
    this.state = outcome.state;
    return outcome.decision;
  }

  sendMany(n: number): RateLimitDecision[] {
    return Array.from({ length: n }, () => this.send());
  }

  peek(): RateLimitDecision {
    return peekRequest(this.state, this.specs, this.now);
  }
}

describe('consumeRequest', () => {
  it('accepts a first request and starts both windows at that moment', () => {
    const key = new FakeKey(windows(5, 100));
    expect(key.send()).toEqual({
      allowed: true,
      banned: false,
      retryAfterSeconds: 0,
      binding: { name: 'minute', limit: 5, remaining: 4, resetAtMs: T0 + MINUTE },
      windows: [
        { name: 'minute', limit: 5, durationMs: MINUTE, remaining: 4, resetAtMs: T0 + MINUTE },
        { name: 'day', limit: 100, durationMs: DAY, remaining: 99, resetAtMs: T0 + DAY },
      ],
      atMs: T0,
    });
    expect(key.state?.windows.day).toEqual({ count: 1, rejected: 0, resetAtMs: T0 + DAY });
  });

  it('rejects once the minute is used up, until the minute window resets', () => {
    const key = new FakeKey(windows(2, 100));
    key.sendMany(2);
    key.now += 10_000;
    const rejected = key.send();
    expect(rejected).toMatchObject({ allowed: false, banned: false, retryAfterSeconds: 50 });
    expect(rejected.binding).toEqual({ name: 'minute', limit: 2, remaining: 0, resetAtMs: T0 + MINUTE });

    key.now = T0 + MINUTE - 1;
    expect(key.send().allowed).toBe(false);
    key.now = T0 + MINUTE;
    const accepted = key.send();
    expect(accepted.allowed).toBe(true);
    // The new window starts at the request that found the old one over.
    expect(accepted.binding).toEqual({ name: 'minute', limit: 2, remaining: 1, resetAtMs: T0 + 2 * MINUTE });
  });

  it('starts a new window at the first request after the old one ended, not on a fixed grid', () => {
    const key = new FakeKey(windows(2, 100));
    key.send();
    key.now = T0 + 5 * MINUTE + 123;
    expect(key.send().binding.resetAtMs).toBe(T0 + 6 * MINUTE + 123);
  });

  it('rejects once the day is used up, until the day window resets, whatever the minute says', () => {
    const key = new FakeKey(windows(10, 3));
    key.sendMany(3);
    key.now += 2 * MINUTE;
    const rejected = key.send();
    expect(rejected).toMatchObject({ allowed: false, banned: false, retryAfterSeconds: (DAY - 2 * MINUTE) / 1000 });
    expect(rejected.binding).toEqual({ name: 'day', limit: 3, remaining: 0, resetAtMs: T0 + DAY });

    key.now = T0 + DAY;
    const accepted = key.send();
    expect(accepted.allowed).toBe(true);
    expect(key.state?.windows.day).toEqual({ count: 1, rejected: 0, resetAtMs: T0 + 2 * DAY });
  });

  it('reports every window, not only the binding one, in the order they were given', () => {
    const key = new FakeKey(windows(2, 100));
    key.send();
    key.now += 10_000;
    key.sendMany(2);
    expect(key.send()).toMatchObject({
      allowed: false,
      windows: [
        { name: 'minute', remaining: 0, resetAtMs: T0 + MINUTE },
        { name: 'day', remaining: 98, resetAtMs: T0 + DAY },
      ],
      atMs: T0 + 10_000,
    });
  });

  it('lets a small daily quota bind before the minute window', () => {
    const key = new FakeKey(windows(60, 2));
    expect(key.send().binding).toEqual({ name: 'day', limit: 2, remaining: 1, resetAtMs: T0 + DAY });
    expect(key.send().binding).toMatchObject({ name: 'day', remaining: 0 });
    expect(key.send()).toMatchObject({ allowed: false, binding: { name: 'day' } });
  });

  it('on a tie in remaining names the window that resets later', () => {
    const key = new FakeKey(windows(3, 3));
    expect(key.send().binding).toEqual({ name: 'day', limit: 3, remaining: 2, resetAtMs: T0 + DAY });
  });

  it('waits for every full window: both full means the later reset', () => {
    const key = new FakeKey(windows(2, 2));
    key.sendMany(2);
    key.now += 1_000;
    expect(key.send()).toMatchObject({ allowed: false, retryAfterSeconds: (DAY - 1_000) / 1000 });
  });

  it('does not count a rejected request in any window', () => {
    const key = new FakeKey(windows(2, 100), { banAfterRejections: 50, banMs: 900_000 });
    key.sendMany(2 + 10);
    expect(key.state?.windows.minute).toMatchObject({ count: 2, rejected: 10 });
    expect(key.state?.windows.day).toMatchObject({ count: 2, rejected: 0 });
    key.now += MINUTE;
    expect(key.send().binding).toMatchObject({ name: 'minute', remaining: 1 });
    expect(key.state?.windows.day?.count).toBe(3);
  });

  it('bans on the rejection that goes over the threshold, answering that very request as banned', () => {
    const key = new FakeKey(windows(1, 100), { banAfterRejections: 3, banMs: 900_000 });
    key.send();
    const rejections = key.sendMany(3);
    expect(rejections.map((d) => d.banned)).toEqual([false, false, false]);
    key.now += 500;
    expect(key.send()).toEqual({
      allowed: false,
      banned: true,
      retryAfterSeconds: 900,
      binding: { name: 'minute', limit: 1, remaining: 0, resetAtMs: T0 + 500 + 900_000 },
      windows: [
        { name: 'minute', limit: 1, durationMs: MINUTE, remaining: 0, resetAtMs: T0 + 500 + 900_000 },
        { name: 'day', limit: 100, durationMs: DAY, remaining: 0, resetAtMs: T0 + 500 + 900_000 },
      ],
      atMs: T0 + 500,
    });
  });

  it('counts requests during a ban nowhere, and accepts again when the ban ends', () => {
    const key = new FakeKey(windows(1, 100), { banAfterRejections: 3, banMs: 900_000 });
    key.sendMany(1 + 4);
    const banEnd = T0 + 900_000;
    const atBanStart = key.state;

    key.now = T0 + 2 * MINUTE;
    const during = key.sendMany(5);
    expect(during.every((d) => d.banned && !d.allowed)).toBe(true);
    expect(during[0]).toMatchObject({ retryAfterSeconds: 780, binding: { remaining: 0, resetAtMs: banEnd } });
    expect(key.state).toBe(atBanStart);

    key.now = banEnd - 1;
    expect(key.send()).toMatchObject({ banned: true, retryAfterSeconds: 1 });
    key.now = banEnd;
    expect(key.send()).toMatchObject({ allowed: true, banned: false, binding: { name: 'minute', remaining: 0 } });
    expect(key.state?.windows.day?.count).toBe(2);
    expect(key.state?.bannedUntilMs).toBe(0);
  });

  it('lets a ban spend the rejections that caused it: after the ban a full day is rate limited, not banned at once', () => {
    const key = new FakeKey(windows(100, 1), { banAfterRejections: 2, banMs: MINUTE });
    key.sendMany(1 + 3);
    expect(key.state?.bannedUntilMs).toBe(T0 + MINUTE);
    key.now = T0 + MINUTE;
    expect(key.sendMany(3).map((d) => d.banned)).toEqual([false, false, true]);
  });

  describe('a burst', () => {
    const BURST: BanPolicy = { banAfterRejections: 3, banMs: 900_000, burstGraceMs: 1_000 };

    it('tallies no refusal within a second of the first refusal of an episode, however many come', () => {
      const key = new FakeKey(windows(2, 100), BURST);
      key.sendMany(2);
      const burst = key.sendMany(200);
      key.now = T0 + 999;
      burst.push(...key.sendMany(200));
      expect(burst.every((d) => !d.allowed && !d.banned && d.retryAfterSeconds >= 1)).toBe(true);
      expect(key.state?.windows.minute).toMatchObject({ count: 2, rejected: 0 });
      expect(key.state?.refusedSinceMs).toBe(T0);
    });

    it('bans a client that keeps sending after that second, as without the grace', () => {
      const key = new FakeKey(windows(2, 100), BURST);
      key.sendMany(2 + 50);
      key.now = T0 + 1_000;
      expect(key.sendMany(4).map((d) => d.banned)).toEqual([false, false, false, true]);
    });

    it('dates the second from the first refusal, not the first request, and ends the episode at the next accepted request', () => {
      const key = new FakeKey(windows(2, 100), BURST);
      key.sendMany(2);
      key.now = T0 + 30_000;
      key.send();
      key.now = T0 + 30_999;
      key.sendMany(10);
      expect(key.state?.windows.minute?.rejected).toBe(0);
      key.now = T0 + MINUTE;
      expect(key.send()).toMatchObject({ allowed: true });
      expect(key.state?.refusedSinceMs).toBe(0);
      key.send();
      key.now = T0 + MINUTE + 5_000;
      // A new episode: its first second is a burst again.
      key.sendMany(10);
      expect(key.state?.windows.minute?.rejected).toBe(0);
      expect(key.state?.refusedSinceMs).toBe(T0 + MINUTE + 5_000);
    });

    it("over an account keeps the episode with the key's ban: a sibling's accepted request ends only its own", () => {
      const specs = windows(2, 100);
      let quota: StoredKeyState | undefined;
      const bans: Record<string, StoredKeyState | undefined> = {};
      const send = (subject: string, at: number) => {
        const outcome = consumeSharedRequest(quota, bans[subject], specs, BURST, at);
        quota = outcome.quota ?? quota;
        bans[subject] = outcome.ban ?? bans[subject];
        return outcome.decision;
      };
      send('a', T0);
      send('a', T0);
      send('a', T0);
      expect(bans.a?.refusedSinceMs).toBe(T0);
      expect(quota?.refusedSinceMs ?? 0).toBe(0);
      expect([1, 2, 3, 4].map(() => send('a', T0 + 1_000).banned)).toEqual([false, false, false, true]);
    });
  });

  it('rounds Retry-After up to whole seconds and never answers 0', () => {
    const key = new FakeKey(windows(1, 100), { banAfterRejections: 100, banMs: 900_000 });
    key.send();
    key.now = T0 + 58_001;
    expect(key.send().retryAfterSeconds).toBe(2);
    key.now = T0 + 59_999;
    expect(key.send().retryAfterSeconds).toBe(1);
    expect(secondsUntil(T0, T0)).toBe(1);
    expect(secondsUntil(T0 + 1, T0)).toBe(1);
    expect(secondsUntil(T0 + 1_001, T0)).toBe(2);
  });

  it('keeps a key only as long as its last window or ban lasts', () => {
    const key = new FakeKey(windows(1, 100), { banAfterRejections: 0, banMs: 2 * DAY });
    key.send();
    expect(forgetAtMs(key.state!)).toBe(T0 + DAY);
    key.send();
    expect(forgetAtMs(key.state!)).toBe(T0 + 2 * DAY);
  });

  it('refuses a limit without windows', () => {
    expect(() => consumeRequest(undefined, [], { banAfterRejections: 1, banMs: 1 }, T0)).toThrow(/at least one window/);
  });
});

describe('peekRequest', () => {
  it('reads a key never seen as its whole quota, windows starting now, and keeps nothing', () => {
    const key = new FakeKey(windows(5, 100));
    expect(key.peek()).toEqual({
      allowed: true,
      banned: false,
      retryAfterSeconds: 0,
      binding: { name: 'minute', limit: 5, remaining: 5, resetAtMs: T0 + MINUTE },
      windows: [
        { name: 'minute', limit: 5, durationMs: MINUTE, remaining: 5, resetAtMs: T0 + MINUTE },
        { name: 'day', limit: 100, durationMs: DAY, remaining: 100, resetAtMs: T0 + DAY },
      ],
      atMs: T0,
    });
    expect(key.state).toBeUndefined();
  });

  it('answers what the last request left, and the next request counts as if no peek came between', () => {
    const key = new FakeKey(windows(5, 100));
    key.sendMany(2);
    key.now += 1_000;
    const stateBefore = key.state;
    expect(key.peek()).toMatchObject({ allowed: true, binding: { name: 'minute', remaining: 3, resetAtMs: T0 + MINUTE }, atMs: T0 + 1_000 });
    expect(key.state).toBe(stateBefore);
    expect(key.send().binding).toMatchObject({ remaining: 2 });
  });

  it('refuses on a full window with the Retry-After of a refused request, and tallies no rejection however often it is asked', () => {
    const key = new FakeKey(windows(2, 100), { banAfterRejections: 1, banMs: 900_000 });
    key.sendMany(2);
    key.now += 10_000;
    const peeks = Array.from({ length: 10 }, () => key.peek());
    expect(peeks.every((peek) => !peek.allowed && !peek.banned && peek.retryAfterSeconds === 50)).toBe(true);
    expect(peeks[0]).toEqual({ ...key.send(), atMs: T0 + 10_000 });
    expect(key.state?.windows.minute).toMatchObject({ count: 2, rejected: 1 });
    // The second refused request, not any peek, goes over the threshold of one.
    expect(key.send().banned).toBe(true);
  });

  it('answers a ban with its end in every window, and does not lengthen it', () => {
    const key = new FakeKey(windows(1, 100), { banAfterRejections: 0, banMs: 900_000 });
    key.sendMany(2);
    key.now = T0 + MINUTE;
    expect(key.peek()).toMatchObject({ allowed: false, banned: true, retryAfterSeconds: 840, binding: { remaining: 0, resetAtMs: T0 + 900_000 } });
    key.now = T0 + 900_000;
    expect(key.peek()).toMatchObject({ allowed: true, banned: false });
  });

  it("over an account reads the account's windows and the key's own ban, as consumeSharedRequest does", () => {
    const specs = windows(1, 100);
    const policy = { banAfterRejections: 1, banMs: 900_000 };
    let { quota } = consumeSharedRequest(undefined, undefined, specs, policy, T0);
    let ban: StoredKeyState | undefined;
    for (let i = 0; i < 2; i++) ({ quota = quota, ban = ban } = consumeSharedRequest(quota, ban, specs, policy, T0));
    expect(peekSharedRequest(quota, ban, specs, T0)).toMatchObject({ allowed: false, banned: true });
    expect(peekSharedRequest(quota, undefined, specs, T0)).toMatchObject({ allowed: false, banned: false, retryAfterSeconds: 60 });
    expect(peekSharedRequest(quota, undefined, specs, T0 + MINUTE)).toMatchObject({ allowed: true, binding: { remaining: 1 } });
  });
});

describe('refundRequest', () => {
  it('takes a counted request back from every window it counted in, and tells it as the next peek reads', () => {
    const specs: WindowSpec[] = [...windows(3, 100), { name: 'answers', limit: 30, durationMs: MINUTE, use: 'check' }];
    const key = new FakeKey(specs);
    key.send();
    const counted = key.send();
    key.state = refundRequest(key.state, specs, counted, key.now);
    expect(key.state?.windows).toMatchObject({ minute: { count: 1 }, day: { count: 1 }, answers: { count: 0 } });
    expect(refundedDecision(counted, specs)).toEqual({ ...key.peek(), windows: key.peek().windows.map((window, i) => (i === 2 ? counted.windows[2] : window)) });
  });

  it('leaves a window that ended since alone, and the rejections, the ban and the episode as they are', () => {
    const key = new FakeKey(windows(1, 100), { banAfterRejections: 5, banMs: 900_000 });
    const counted = key.send();
    key.now += 2_000;
    key.send();
    const before = key.state;
    key.now = T0 + MINUTE;
    key.send();
    key.state = refundRequest(key.state, windows(1, 100), counted, key.now);
    expect(key.state?.windows).toMatchObject({ minute: { count: 1, resetAtMs: T0 + 2 * MINUTE }, day: { count: 1 } });
    expect(before?.windows.minute).toMatchObject({ rejected: 1 });
    expect(key.state?.refusedSinceMs).toBe(0);
  });

  it('changes nothing for a key never counted', () => {
    const counted = new FakeKey(windows(1, 100)).send();
    expect(refundRequest(undefined, windows(1, 100), counted, T0)).toBeUndefined();
  });
});
