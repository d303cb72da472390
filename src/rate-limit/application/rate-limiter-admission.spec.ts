import { memoryLimiter } from '../../../test/support/rate-limit-fixtures';
import { TooManyInFlightError } from '../domain/concurrency-cap';
import type { RateLimitedCaller } from '../domain/rate-limited-caller';
import { planWindowsOf } from './rate-limiter';

const LIMITS = { perMinute: 60, perDay: 1_000 };
const keyOn = (plan: string, limits = LIMITS): RateLimitedCaller => ({ tracker: 'account:3', plan, limits, key: { id: 7, accountId: 3 } });
const ADDRESS: RateLimitedCaller = { tracker: 'ip:192.0.2.1', plan: undefined, limits: LIMITS, key: undefined };

describe('RateLimiter.admit, the one decision on a request', () => {
  it("caps each plan by its default, and an address by the free plan's", () => {
    const { limiter } = memoryLimiter();
    expect(['free', 'pro', 'business', 'enterprise'].map((plan) => limiter.capOf(keyOn(plan)))).toEqual([5, 20, 50, 100]);
    expect(limiter.capOf(ADDRESS)).toBe(5);
  });

  it('takes the caps RATE_LIMIT_PLANS sets, for an address too, and keeps the others', () => {
    const { limiter } = memoryLimiter({ RATE_LIMIT_PLANS: '{"free":{"concurrency":2},"pro":{"perMinute":10}}' });
    expect([limiter.capOf(keyOn('free')), limiter.capOf(keyOn('pro')), limiter.capOf(ADDRESS)]).toEqual([2, 20, 2]);
  });

  it('refuses a cap in RATE_LIMIT_PLANS that is no positive integer, naming the variable', () => {
    for (const concurrency of ['0', '1.5', '"3"']) {
      expect(() => memoryLimiter({ RATE_LIMIT_PLANS: `{"free":{"concurrency":${concurrency}}}` })).toThrow(
        /^Invalid configuration: RATE_LIMIT_PLANS: plan "free" needs positive integers perMinute, perDay, concurrency and openOrders$/,
      );
    }
  });

  it('gives a request let in a place up to the cap, and refuses the next with a one-second rate_limited naming the cap, holding nothing for it', async () => {
    const { limiter, places } = memoryLimiter({ RATE_LIMIT_PLANS: '{"free":{"concurrency":2}}' });
    const caller = keyOn('free');
    const admitted = [await limiter.admit({ caller, takesPlace: true }), await limiter.admit({ caller, takesPlace: true })];
    expect(admitted.map(({ refusal, place }) => [refusal, place !== undefined])).toEqual([
      [undefined, true],
      [undefined, true],
    ]);
    const refused = await limiter.admit({ caller, takesPlace: true });
    expect(refused.refusal).toBeInstanceOf(TooManyInFlightError);
    expect(refused).toMatchObject({ cap: 2, place: undefined, refusal: { code: 'rate_limited', retryAfterSeconds: 1, message: expect.stringMatching(/at most 2 at once/) } });
    expect(places.heldBy('account:3')).toBe(2);
    await admitted[0].place?.release();
    await expect(limiter.admit({ caller, takesPlace: true })).resolves.toMatchObject({ refusal: undefined, cap: undefined });
  });

  it('gives a request the access check refuses no place, and judges the windows before the cap', async () => {
    const { limiter, places } = memoryLimiter({ RATE_LIMIT_PLANS: '{"free":{"concurrency":1}}' });
    const caller = keyOn('free', { perMinute: 1, perDay: 100 });
    const held = await limiter.admit({ caller, takesPlace: true });
    await expect(limiter.admit({ caller, takesPlace: false })).resolves.toMatchObject({ place: undefined, refusal: { code: 'rate_limited', retryAfterSeconds: 60 } });
    // Over its minute and at its cap: the windows' refusal, with their Retry-After, not the cap's.
    await expect(limiter.admit({ caller, takesPlace: true })).resolves.toMatchObject({ cap: undefined, refusal: { code: 'rate_limited', retryAfterSeconds: 60 } });
    expect(places.heldBy('account:3')).toBe(1);
    await held.place?.release();
  });

  it('counts no refusal of the cap toward a ban, however many come and however long they go on', async () => {
    const { clock, limiter } = memoryLimiter({ BAN_AFTER_REJECTIONS: '2', BAN_SECONDS: '600', RATE_LIMIT_PLANS: '{"free":{"concurrency":1}}' });
    const caller = keyOn('free');
    await limiter.admit({ caller, takesPlace: true });
    for (let i = 0; i < 10; i++) {
      clock.advance(1_000);
      await expect(limiter.admit({ caller, takesPlace: true })).resolves.toMatchObject({ refusal: { code: 'rate_limited', retryAfterSeconds: 1 } });
    }
    await expect(limiter.consume('account:3', planWindowsOf(LIMITS), 'key:7')).resolves.toMatchObject({ allowed: true, banned: false });
  });

  it('spends no quota on a refusal of the cap: the windows count only the requests let in, and the refusal is told so', async () => {
    const { limiter } = memoryLimiter({ RATE_LIMIT_PLANS: '{"free":{"concurrency":1}}' });
    const caller = keyOn('free');
    await limiter.admit({ caller, takesPlace: true });
    const refused = await limiter.admit({ caller, takesPlace: true });
    expect(refused).toMatchObject({ cap: 1, place: undefined, decision: { binding: { name: 'minute', remaining: 59 } } });
    expect(refused.decision.windows.map(({ remaining }) => remaining)).toEqual([59, 999, 599]);
    await expect(limiter.peek(caller.tracker, planWindowsOf(LIMITS))).resolves.toMatchObject({ binding: { remaining: 59 } });
  });

  it("counts a request that may be a 304 in answers alone, and owes the plan its count, paid when the answer is no 304", async () => {
    const { limiter } = memoryLimiter();
    const caller = keyOn('free');
    const admission = await limiter.admit({ caller, mayBeNotModified: true, takesPlace: true });
    expect(admission.decision.windows.map(({ name, remaining }) => [name, remaining])).toEqual([
      ['minute', 60],
      ['day', 1_000],
      ['answers', 599],
    ]);
    const paid = await admission.owed?.();
    expect(paid?.decision.windows.map(({ name, remaining }) => [name, remaining])).toEqual([
      ['minute', 59],
      ['day', 999],
      ['answers', 599],
    ]);
  });

  it("refuses a key that was not looked up as its address, with a second's Retry-After while the address has room, counting it nowhere", async () => {
    const { limiter } = memoryLimiter();
    const refused = await limiter.admit({ caller: ADDRESS, keyNotLookedUp: true, takesPlace: true });
    expect(refused).toMatchObject({ place: undefined, refusal: { code: 'rate_limited', retryAfterSeconds: 1 } });
    await expect(limiter.peek(ADDRESS.tracker, planWindowsOf(LIMITS))).resolves.toMatchObject({ allowed: true, binding: { remaining: 60 } });
  });
});
