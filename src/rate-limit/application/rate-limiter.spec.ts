import { MINUTE, memoryLimiter, planWindows, T0 } from '../../../test/support/rate-limit-fixtures';
import { planWindowsOf } from './rate-limiter';

describe('RateLimiter', () => {
  it("judges a tracker's windows together on the injected clock, with the configured ban and a second's grace for a burst", async () => {
    const { clock, limiter } = memoryLimiter({ BAN_AFTER_REJECTIONS: '1', BAN_SECONDS: '120' });
    const windows = planWindows(1, 100);
    await expect(limiter.consume('key:1', windows)).resolves.toMatchObject({ allowed: true, binding: { name: 'minute', resetAtMs: T0 + MINUTE } });
    for (let i = 0; i < 5; i++) {
      await expect(limiter.consume('key:1', windows)).resolves.toMatchObject({ allowed: false, banned: false, retryAfterSeconds: 60 });
    }
    clock.advance(1_000);
    await expect(limiter.consume('key:1', windows)).resolves.toMatchObject({ allowed: false, banned: false, retryAfterSeconds: 59 });
    await expect(limiter.consume('key:1', windows)).resolves.toMatchObject({ banned: true, retryAfterSeconds: 120 });
    await expect(limiter.consume('key:2', windows)).resolves.toMatchObject({ allowed: true });
  });

  it('gives every plan a minute and a day window, the minute first, then ten times the minute in answers', () => {
    expect(planWindowsOf({ perMinute: 5, perDay: 8 })).toEqual([
      ...planWindows(5, 8).map((window) => ({ ...window, use: 'count' })),
      { name: 'answers', limit: 50, durationMs: MINUTE, use: 'count' },
    ]);
    expect(planWindowsOf({ perMinute: 5, perDay: 8 }, 'check', 'report').map(({ name, use }) => [name, use])).toEqual([
      ['minute', 'check'],
      ['day', 'check'],
      ['answers', 'report'],
    ]);
  });
});
