import type { FastifyRequest } from 'fastify';
import type { Caller } from '../callers/caller';
import { CallerLookup } from './caller-lookup';
import { callerOf, requestState } from './request-context';

class CountingLookup extends CallerLookup {
  readonly asked: FastifyRequest[] = [];

  protected async identify(request: FastifyRequest): Promise<Caller> {
    this.asked.push(request);
    return { kind: 'anonymous', address: request.ip, limits: { perMinute: 10, perDay: 100 } };
  }
}

const requestFrom = (ip: string) => ({ ip }) as FastifyRequest;

describe('request state', () => {
  it('is one object per request, empty at first', () => {
    const [request, other] = [requestFrom('10.0.0.1'), requestFrom('10.0.0.2')];
    expect(requestState(request)).toEqual({});
    requestState(request).deferredCharge = async () => undefined;
    expect(requestState(request)).toBe(requestState(request));
    expect(requestState(other).deferredCharge).toBeUndefined();
  });

  it('refuses to name a caller before the lookup resolved', () => {
    expect(() => callerOf(requestFrom('10.0.0.1'))).toThrow('callerOf() asked before the caller was looked up');
  });
});

describe('CallerLookup', () => {
  it('looks a request up once, however often and however soon it is asked, and keeps the caller on that request alone', async () => {
    const lookup = new CountingLookup();
    const [request, other] = [requestFrom('10.0.0.1'), requestFrom('10.0.0.2')];
    const [first, second] = await Promise.all([lookup.find(request), lookup.find(request)]);
    expect(first).toBe(second);
    expect(await lookup.find(request)).toBe(first);
    expect(lookup.asked).toEqual([request]);
    expect(callerOf(request)).toBe(first);
    expect(() => callerOf(other)).toThrow();
    expect((await lookup.find(other)) as { address: string }).toMatchObject({ address: '10.0.0.2' });
    expect(lookup.asked).toEqual([request, other]);
  });
});
