import type { WindowSpec } from '../../src/rate-limit/domain/rate-limit-store';

export const MINUTE = 60_000;
export const DAY = 86_400_000;
/** Where the fake clocks of the rate-limit specs start. */
export const T0 = 1_763_700_000_000;

export const planWindows = (perMinute: number, perDay: number): WindowSpec[] => [
  { name: 'minute', limit: perMinute, durationMs: MINUTE },
  { name: 'day', limit: perDay, durationMs: DAY },
];
