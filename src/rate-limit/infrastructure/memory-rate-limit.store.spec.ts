import type { BanPolicy, WindowSpec } from '../domain/rate-limit-store';
import { MemoryRateLimitStore } from './memory-rate-limit.store';

const MINUTE = 60_000;
const T0 = 1_763_700_000_000;
const WINDOWS: WindowSpec[] = [
  { name: 'minute', limit: 2, durationMs: MINUTE },
  { name: 'day', limit: 1_000, durationMs: 10 * MINUTE },
];
const POLICY: BanPolicy = { banAfterRejections: 1, banMs: 30 * MINUTE };

describe('MemoryRateLimitStore', () => {
  it('answers the decision itself, not a promise: a request counted in memory waits for nothing', () => {
    const decision = new MemoryRateLimitStore().consume('a', WINDOWS, POLICY, T0);
    expect(decision).not.toBeInstanceOf(Promise);
    expect(decision).toMatchObject({ allowed: true, binding: { name: 'minute', remaining: 1 } });
  });

  it('drops keys whose windows have all ended', () => {
    const store = new MemoryRateLimitStore({ sweepEveryMs: MINUTE });
    store.consume('a', WINDOWS, POLICY, T0);
    store.consume('b', WINDOWS, POLICY, T0 + 5 * MINUTE);
    expect(store.size).toBe(2);
    store.consume('c', WINDOWS, POLICY, T0 + 10 * MINUTE);
    expect(store.size).toBe(2);
    store.consume('d', WINDOWS, POLICY, T0 + 20 * MINUTE);
    expect(store.size).toBe(1);
  });

  it('keeps a banned key until its ban ends, even after its windows have', () => {
    const store = new MemoryRateLimitStore({ sweepEveryMs: MINUTE });
    for (let i = 0; i < 4; i += 1) store.consume('flooder', WINDOWS, POLICY, T0);
    store.consume('other', WINDOWS, POLICY, T0 + 20 * MINUTE);
    expect(store.consume('flooder', WINDOWS, POLICY, T0 + 20 * MINUTE)).toMatchObject({ banned: true });
    store.consume('other', WINDOWS, POLICY, T0 + 30 * MINUTE);
    expect(store.size).toBe(1);
    expect(store.consume('flooder', WINDOWS, POLICY, T0 + 30 * MINUTE)).toMatchObject({ allowed: true });
  });

  it('stays under its cap when flooded with distinct keys, evicting the least recently counted first', () => {
    const store = new MemoryRateLimitStore({ maxKeys: 100 });
    store.consume('regular', WINDOWS, POLICY, T0);
    for (let i = 0; i < 1_000; i += 1) {
      store.consume(`flood-${i}`, WINDOWS, POLICY, T0 + 1);
      if (i % 50 === 0) store.consume('regular', WINDOWS, { ...POLICY, banAfterRejections: 10_000 }, T0 + 1);
      expect(store.size).toBeLessThanOrEqual(100);
    }
    expect(store.size).toBeGreaterThanOrEqual(90);
    // Still remembered: counted recently enough, so its minute is used up.
    expect(store.consume('regular', WINDOWS, POLICY, T0 + 2)).toMatchObject({ allowed: false });
    // Evicted long ago: a fresh key again.
    expect(store.consume('flood-0', WINDOWS, POLICY, T0 + 2)).toMatchObject({
      allowed: true,
      binding: { name: 'minute', remaining: 1 },
    });
  });

  it('forgets everything on close', async () => {
    const store = new MemoryRateLimitStore();
    store.consume('a', WINDOWS, POLICY, T0);
    await store.close();
    expect(store.size).toBe(0);
  });
});
