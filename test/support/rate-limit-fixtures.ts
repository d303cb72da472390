import { loadConfig } from '../../src/config/app-config';
import { BanLog } from '../../src/rate-limit/application/ban-log';
import { RateLimiter } from '../../src/rate-limit/application/rate-limiter';
import type { WindowSpec } from '../../src/rate-limit/domain/rate-limit-store';
import { MemoryConcurrencyStore } from '../../src/rate-limit/infrastructure/memory-concurrency.store';
import { MemoryRateLimitStore } from '../../src/rate-limit/infrastructure/memory-rate-limit.store';
import { FakeClock } from './fake-clock';

export const MINUTE = 60_000;
export const DAY = 86_400_000;
/** Where the fake clocks of the rate-limit specs start. */
export const T0 = 1_763_700_000_000;

export const planWindows = (perMinute: number, perDay: number): WindowSpec[] => [
  { name: 'minute', limit: perMinute, durationMs: MINUTE },
  { name: 'day', limit: perDay, durationMs: DAY },
];

/** A limiter on memory counters and places and a fake clock at T0, on the configuration `env` gives. */
export function memoryLimiter(env: Record<string, string> = {}) {
  const config = loadConfig(env);
  const clock = new FakeClock(T0);
  const places = new MemoryConcurrencyStore();
  const limiter = new RateLimiter(new MemoryRateLimitStore(), places, clock, new BanLog(config), config);
  return { clock, places, limiter };
}
