import type { HttpAdapterHost } from '@nestjs/core';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import type { Caller } from './caller';
import { callerOf, declareRequestFields, setCaller } from './request-context';

const hostOf = (fastify: FastifyInstance | undefined) => ({ httpAdapter: fastify && { getInstance: () => fastify } }) as unknown as HttpAdapterHost;

describe('request context', () => {
  const caller: Caller = { kind: 'anonymous', address: '127.0.0.1', limits: { perMinute: 10, perDay: 100 } };

  it('declares the field on every request from its start, empty, as an own field of the request', async () => {
    const fastify = Fastify();
    declareRequestFields(hostOf(fastify), 'caller');
    fastify.get('/', async (request) => ({ own: Object.hasOwn(request, 'caller'), value: request.caller }));
    const answers = await Promise.all([1, 2].map(() => fastify.inject({ method: 'GET', url: '/' })));
    expect(answers.map((answer) => answer.json())).toEqual([
      { own: true, value: null },
      { own: true, value: null },
    ]);
    await fastify.close();
  });

  it('declares nothing, and does not fail, for a module compiled without an HTTP server', () => {
    expect(() => declareRequestFields(hostOf(undefined), 'caller')).not.toThrow();
  });

  it('refuses to name a caller before the authentication step set one, declared or not', () => {
    expect(() => callerOf({ caller: null } as FastifyRequest)).toThrow('callerOf() asked before the authentication guard ran');
    expect(() => callerOf({} as FastifyRequest)).toThrow('callerOf() asked before the authentication guard ran');
  });

  it('answers the caller the authentication step set on the request, and only on that request', () => {
    const [request, other] = [{ caller: null } as FastifyRequest, { caller: null } as FastifyRequest];
    setCaller(request, caller);
    expect(callerOf(request)).toBe(caller);
    expect(() => callerOf(other)).toThrow();
  });
});
