import { MINUTE, memoryLimiter } from '../../../test/support/rate-limit-fixtures';
import { LimiterThrottlerStorage } from './limiter-throttler-storage';

describe('LimiterThrottlerStorage', () => {
  it("answers the library's one-window increment in the library's terms", async () => {
    const { clock, limiter } = memoryLimiter();
    const storage = new LimiterThrottlerStorage(limiter);
    await expect(storage.increment('ip:a', MINUTE, 2, MINUTE, 'minute')).resolves.toEqual({
      totalHits: 1,
      timeToExpire: 60,
      isBlocked: false,
      timeToBlockExpire: 0,
    });
    clock.advance(10_000);
    await storage.increment('ip:a', MINUTE, 2, MINUTE, 'minute');
    await expect(storage.increment('ip:a', MINUTE, 2, MINUTE, 'minute')).resolves.toEqual({
      totalHits: 3,
      timeToExpire: 50,
      isBlocked: true,
      timeToBlockExpire: 50,
    });
  });
});
