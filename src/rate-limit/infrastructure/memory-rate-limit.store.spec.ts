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
  it('counts a first request in its windows', async () => {
    await expect(new MemoryRateLimitStore().consume('a', WINDOWS, POLICY, T0)).resolves.toMatchObject({
      allowed: true,
      binding: { name: 'minute', remaining: 1 },
    });
  });

  it('drops keys whose windows have all ended', async () => {
    const store = new MemoryRateLimitStore({ sweepEveryMs: MINUTE });
    await store.consume('a', WINDOWS, POLICY, T0);
    await store.consume('b', WINDOWS, POLICY, T0 + 5 * MINUTE);
    expect(store.size).toBe(2);
    await store.consume('c', WINDOWS, POLICY, T0 + 10 * MINUTE);
    expect(store.size).toBe(2);
    await store.consume('d', WINDOWS, POLICY, T0 + 20 * MINUTE);
    expect(store.size).toBe(1);
  });

  it('keeps a banned key until its ban ends, even after its windows have', async () => {
    const store = new MemoryRateLimitStore({ sweepEveryMs: MINUTE });
    for (let i = 0; i < 4; i += 1) await store.consume('flooder', WINDOWS, POLICY, T0);
    await store.consume('other', WINDOWS, POLICY, T0 + 20 * MINUTE);
    await expect(store.consume('flooder', WINDOWS, POLICY, T0 + 20 * MINUTE)).resolves.toMatchObject({ banned: true });
    await store.consume('other', WINDOWS, POLICY, T0 + 30 * MINUTE);
    expect(store.size).toBe(1);
    await expect(store.consume('flooder', WINDOWS, POLICY, T0 + 30 * MINUTE)).resolves.toMatchObject({ allowed: true });
  });

  it('stays under its cap when flooded with distinct keys, evicting the least recently counted first', async () => {
    const store = new MemoryRateLimitStore({ maxKeys: 100 });
    await store.consume('regular', WINDOWS, POLICY, T0);
    for (let i = 0; i < 1_000; i += 1) {
      await store.consume(`flood-${i}`, WINDOWS, POLICY, T0 + 1);
      if (i % 50 === 0) await store.consume('regular', WINDOWS, { ...POLICY, banAfterRejections: 10_000 }, T0 + 1);
      expect(store.size).toBeLessThanOrEqual(100);
    }
    expect(store.size).toBeGreaterThanOrEqual(90);
    // Still remembered: counted recently enough, so its minute is used up.
    await expect(store.consume('regular', WINDOWS, POLICY, T0 + 2)).resolves.toMatchObject({ allowed: false });
    // Evicted long ago: a fresh key again.
    await expect(store.consume('flood-0', WINDOWS, POLICY, T0 + 2)).resolves.toMatchObject({
      allowed: true,
      binding: { name: 'minute', remaining: 1 },
    });
  });

  it('keeps client addresses apart: a flood of them past their bound evicts only addresses, never a keyed record or a ban', async () => {
    const store = new MemoryRateLimitStore({ maxKeys: 10, maxAddresses: 50 });
    await store.consume('account:1', WINDOWS, POLICY, T0, 'key:1');
    for (let i = 0; i < 4; i += 1) await store.consume('account:2', WINDOWS, POLICY, T0, 'key:2');
    await store.consume('ip:192.0.2.1', WINDOWS, POLICY, T0);
    for (let i = 0; i < 1_000; i += 1) {
      await store.consume(`ip:10.0.${i >> 8}.${i & 255}`, WINDOWS, POLICY, T0 + 1);
      expect(store.size).toBeLessThanOrEqual(4 + 50);
    }
    await expect(store.peek('account:1', WINDOWS, POLICY, T0 + 2, 'key:1')).resolves.toMatchObject({ binding: { name: 'minute', remaining: 1 } });
    await expect(store.peek('account:2', WINDOWS, POLICY, T0 + 2, 'key:2')).resolves.toMatchObject({ banned: true });
    // The first address was the oldest of its kind, so it went.
    await expect(store.peek('ip:192.0.2.1', WINDOWS, POLICY, T0 + 2)).resolves.toMatchObject({ binding: { name: 'minute', remaining: 2 } });
  });

  it('keeps nothing for a peek, so peeks neither fill the store nor evict a counted key', async () => {
    const store = new MemoryRateLimitStore({ maxKeys: 10 });
    await store.consume('counted', WINDOWS, POLICY, T0);
    for (let i = 0; i < 100; i += 1) await store.peek(`peeked-${i}`, WINDOWS, POLICY, T0 + 1, `key:${i}`);
    expect(store.size).toBe(1);
    await expect(store.peek('counted', WINDOWS, POLICY, T0 + 2)).resolves.toMatchObject({ allowed: true, binding: { name: 'minute', remaining: 1 } });
  });

  it('forgets everything on close', async () => {
    const store = new MemoryRateLimitStore();
    await store.consume('a', WINDOWS, POLICY, T0);
    await store.close();
    expect(store.size).toBe(0);
  });
});
