import { RequestDrain } from './request-drain';

describe('RequestDrain', () => {
  it('admits requests until draining starts, then refuses them', () => {
    const drain = new RequestDrain();
    expect(drain.admit()).toBe(true);
    void drain.drain(1_000);
    expect(drain.admit()).toBe(false);
  });

  it('resolves true at once when nothing is in flight', async () => {
    await expect(new RequestDrain().drain(1_000)).resolves.toBe(true);
  });

  it('resolves true when the last admitted request is released', async () => {
    const drain = new RequestDrain();
    drain.admit();
    drain.admit();
    let settled: boolean | undefined;
    const drained = drain.drain(5_000).then((value) => (settled = value));
    drain.release();
    await Promise.resolve();
    expect(settled).toBeUndefined();
    drain.release();
    await drained;
    expect(settled).toBe(true);
  });

  it('resolves false when requests are still in flight after the timeout', async () => {
    const drain = new RequestDrain();
    drain.admit();
    await expect(drain.drain(20)).resolves.toBe(false);
  });
});
