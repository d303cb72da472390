import { MemoryConcurrencyStore } from './memory-concurrency.store';

describe('MemoryConcurrencyStore', () => {
  it('gives a key as many places as its cap at once, refuses the next, and gives a released place again', async () => {
    const store = new MemoryConcurrencyStore();
    const answers = await Promise.all(Array.from({ length: 5 }, () => store.acquire('account:1', 3)));
    expect(answers.map((slot) => slot !== null)).toEqual([true, true, true, false, false]);
    expect(store.heldBy('account:1')).toBe(3);

    await answers[0]!.release();
    expect(store.heldBy('account:1')).toBe(2);
    await expect(store.acquire('account:1', 3)).resolves.not.toBeNull();
    await expect(store.acquire('account:1', 3)).resolves.toBeNull();
  });

  it('counts a place released twice once', async () => {
    const store = new MemoryConcurrencyStore();
    const [first] = await Promise.all([store.acquire('account:1', 2), store.acquire('account:1', 2)]);
    await first!.release();
    await first!.release();
    expect(store.heldBy('account:1')).toBe(1);
  });

  it('caps each key apart, each by the cap it is asked with', async () => {
    const store = new MemoryConcurrencyStore();
    await expect(store.acquire('account:1', 1)).resolves.not.toBeNull();
    await expect(store.acquire('account:1', 1)).resolves.toBeNull();
    await expect(store.acquire('ip:127.0.0.1', 1)).resolves.not.toBeNull();
    // A plan raised while requests run: the next request is judged by the new cap.
    await expect(store.acquire('account:1', 2)).resolves.not.toBeNull();
    expect({ account: store.heldBy('account:1'), address: store.heldBy('ip:127.0.0.1') }).toEqual({ account: 2, address: 1 });
  });

  it('forgets a key once its last place is released, so memory holds only the callers in flight', async () => {
    const store = new MemoryConcurrencyStore();
    const slots = await Promise.all(['account:1', 'account:2', 'account:2'].map((key) => store.acquire(key, 5)));
    expect(store.size).toBe(2);
    await Promise.all(slots.map((slot) => slot!.release()));
    expect(store.size).toBe(0);
  });
});
