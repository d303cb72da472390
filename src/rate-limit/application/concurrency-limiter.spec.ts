import { FakeClock } from '../../../test/support/fake-clock';
import { T0 } from '../../../test/support/rate-limit-fixtures';
import { loadConfig } from '../../config/app-config';
import type { AnonymousCaller, KeyCaller } from '../../callers/caller';
import { TooManyInFlightError } from '../domain/concurrency-cap';
import { MemoryConcurrencyStore } from '../infrastructure/memory-concurrency.store';
import { MemoryRateLimitStore } from '../infrastructure/memory-rate-limit.store';
import { ConcurrencyLimiter } from './concurrency-limiter';
import { planWindowsOf, RateLimiter } from './rate-limiter';

const LIMITS = { perMinute: 60, perDay: 1_000 };
const keyOn = (plan: string): KeyCaller => ({ kind: 'key', keyId: 7, accountId: 3, plan, limits: LIMITS, scopes: [] });
const ADDRESS: AnonymousCaller = { kind: 'anonymous', address: '192.0.2.1', limits: LIMITS };

function setUp(env: Record<string, string> = {}) {
  const config = loadConfig(env);
  const clock = new FakeClock(T0);
  const store = new MemoryConcurrencyStore();
  const limiter = new RateLimiter(new MemoryRateLimitStore(), clock, config);
  return { clock, store, limiter, concurrency: new ConcurrencyLimiter(store, config) };
}

describe('ConcurrencyLimiter', () => {
  it("caps each plan by its default, and an address by the free plan's", () => {
    const { concurrency } = setUp();
    expect(['free', 'pro', 'business', 'enterprise'].map((plan) => concurrency.capOf(keyOn(plan)))).toEqual([5, 20, 50, 100]);
    expect(concurrency.capOf(ADDRESS)).toBe(5);
  });

  it('takes the caps RATE_LIMIT_PLANS sets, for an address too, and keeps the others', () => {
    const { concurrency } = setUp({ RATE_LIMIT_PLANS: '{"free":{"concurrency":2},"pro":{"perMinute":10}}' });
    expect([concurrency.capOf(keyOn('free')), concurrency.capOf(keyOn('pro')), concurrency.capOf(ADDRESS)]).toEqual([2, 20, 2]);
  });

  it('refuses a cap in RATE_LIMIT_PLANS that is no positive integer, naming the variable', () => {
    for (const concurrency of ['0', '1.5', '"3"']) {
      expect(() => setUp({ RATE_LIMIT_PLANS: `{"free":{"concurrency":${concurrency}}}` })).toThrow(
        /^Invalid configuration: RATE_LIMIT_PLANS: plan "free" needs positive integers perMinute, perDay, concurrency and openOrders$/,
      );
    }
  });

  it('gives places up to the cap and refuses the next with a one-second rate_limited, holding nothing for it', async () => {
    const { concurrency, store } = setUp();
    const slots = [await concurrency.acquire('account:3', 2), await concurrency.acquire('account:3', 2)];
    const refusal = concurrency.acquire('account:3', 2);
    await expect(refusal).rejects.toBeInstanceOf(TooManyInFlightError);
    await expect(refusal).rejects.toMatchObject({ code: 'rate_limited', retryAfterSeconds: 1, message: expect.stringMatching(/at most 2 at once/) });
    expect(store.heldBy('account:3')).toBe(2);
    await slots[0].release();
    await expect(concurrency.acquire('account:3', 2)).resolves.toBeDefined();
  });

  it('counts no refusal toward a ban, however many come and however long they go on', async () => {
    const { clock, concurrency, limiter } = setUp({ BAN_AFTER_REJECTIONS: '2', BAN_SECONDS: '600' });
    await concurrency.acquire('account:3', 1);
    for (let i = 0; i < 10; i++) {
      clock.advance(1_000);
      await expect(concurrency.acquire('account:3', 1)).rejects.toMatchObject({ code: 'rate_limited', retryAfterSeconds: 1 });
    }
    await expect(limiter.consume('account:3', planWindowsOf(LIMITS), 'key:7')).resolves.toMatchObject({ allowed: true, banned: false });
  });

  it('spends no quota on a refusal: the plan windows count only the requests let in', async () => {
    const { concurrency, limiter } = setUp();
    await concurrency.acquire('ip:192.0.2.1', 1);
    await expect(concurrency.acquire('ip:192.0.2.1', 1)).rejects.toBeInstanceOf(TooManyInFlightError);
    await expect(limiter.peek('ip:192.0.2.1', planWindowsOf(LIMITS))).resolves.toMatchObject({ allowed: true, binding: { remaining: 60 } });
  });
});
