import type { FastifyRequest } from 'fastify';
import { DeferredCharges } from './deferred-charges';

describe('DeferredCharges', () => {
  const request = () => ({}) as FastifyRequest;

  it('settles a request nothing was put off for at once, paying nothing', async () => {
    await expect(new DeferredCharges().settle(request(), false)).resolves.toBeUndefined();
  });

  it('pays a put-off count when the answer is not a 304, and nothing for a 304', async () => {
    const charges = new DeferredCharges();
    const [paid, free] = [request(), request()];
    const charge = jest.fn().mockResolvedValue(undefined);
    charges.defer(paid, charge);
    charges.defer(free, charge);
    await charges.settle(paid, false);
    await charges.settle(free, true);
    expect(charge).toHaveBeenCalledTimes(1);
  });

  it('rejects with the refusal when the quota has no room, so that the 429 is answered instead', async () => {
    const charges = new DeferredCharges();
    const refused = request();
    const refusal = new Error('rate limited');
    charges.defer(refused, () => Promise.reject(refusal));
    await expect(charges.settle(refused, false)).rejects.toBe(refusal);
  });

  it('settles a request once, however often it is told', async () => {
    const charges = new DeferredCharges();
    const told = request();
    const charge = jest.fn().mockResolvedValue(undefined);
    charges.defer(told, charge);
    await charges.settle(told, false);
    await charges.settle(told, false);
    expect(charge).toHaveBeenCalledTimes(1);
  });
});
