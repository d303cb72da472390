import type { ExecutionContext } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { InMemoryApiKeyRepository } from '../../../test/support/in-memory-api-key.repository';
import { ApiKeyAuthenticator } from '../../auth/application/api-key-authenticator';
import { ApiKeysService } from '../../auth/application/api-keys.service';
import { hashApiKeySecret } from '../../auth/domain/api-key-secret';
import { UnauthorizedError } from '../../auth/domain/api-key.errors';
import { BearerAuthGuard } from '../../auth/http/bearer-auth.guard';
import { CallerResolver } from '../../auth/http/caller-resolver';
import { loadConfig } from '../../config/app-config';
import { ApiKeyBannedError, RateLimitedError } from '../domain/rate-limit.errors';
import { PlanThrottlerGuard } from '../http/plan-throttler.guard';
import { MemoryRateLimitStore } from '../infrastructure/memory-rate-limit.store';
import { RateLimiter, WindowDefinition } from './rate-limiter';

const SECRET = `ask_test_${'k'.repeat(43)}`;
const WINDOWS: WindowDefinition[] = [
  { name: 'minute', durationMs: 60_000, anonymousLimit: 1 },
  { name: 'day', durationMs: 86_400_000, anonymousLimit: 100 },
];

function request(authorization?: string): FastifyRequest {
  return { url: '/v1/pets', ip: '203.0.113.7', headers: authorization ? { authorization } : {} } as unknown as FastifyRequest;
}

function reply(): FastifyReply & { headers: Record<string, unknown> } {
  const headers: Record<string, unknown> = {};
  const fake = { headers, header: (name: string, value: unknown) => ((headers[name.toLowerCase()] = value), fake) };
  return fake as unknown as FastifyReply & { headers: Record<string, unknown> };
}

function contextOf(req: FastifyRequest, res: FastifyReply): ExecutionContext {
  const http = { getRequest: () => req, getResponse: () => res };
  return { switchToHttp: () => http, getArgByIndex: (i: number) => [req, res][i], getArgs: () => [req, res] } as unknown as ExecutionContext;
}

/** The limiter and both guards on real collaborators: memory counters and an in-memory key store. */
async function setUp() {
  const config = loadConfig({ RATE_LIMIT_PLANS: '{"free":{"perMinute":2,"perDay":100}}', BAN_AFTER_REJECTIONS: '2' });
  const keys = new InMemoryApiKeyRepository();
  await keys.create({ name: 'a', plan: 'free', customLimits: null, keyHash: hashApiKeySecret(SECRET) });
  const store = new MemoryRateLimitStore();
  const callers = new CallerResolver(new ApiKeyAuthenticator(keys));
  const limiter = new RateLimiter(store, callers, new ApiKeysService(keys, config), config, WINDOWS);
  const throttler = new PlanThrottlerGuard({ throttlers: [] }, { increment: jest.fn() } as never, {} as never, limiter);
  return { keys, limiter, bearer: new BearerAuthGuard(callers), throttler };
}

describe('RateLimiter and the guards', () => {
  it('answer at once, without a promise, once the key is known', async () => {
    const { keys, limiter, bearer } = await setUp();
    const first = request(`Bearer ${SECRET}`);
    const pending = limiter.enforce(first, reply());
    expect(pending).toBeInstanceOf(Promise);
    await pending;

    const next = request(`Bearer ${SECRET}`);
    const res = reply();
    expect(bearer.canActivate(contextOf(next, res))).toBe(true);
    expect(limiter.enforce(next, res)).toBeUndefined();
    expect(res.headers).toMatchObject({ 'x-ratelimit-limit': 2, 'x-ratelimit-remaining': 0 });
    expect(keys.lookups).toBe(1);
  });

  it('counts a request once, even when a refusal is thrown and the error filter asks again', async () => {
    const { limiter } = await setUp();
    await limiter.enforce(request(`Bearer ${SECRET}`), reply());
    expect(limiter.enforce(request(`Bearer ${SECRET}`), reply())).toBeUndefined();

    const refused = request(`Bearer ${SECRET}`);
    expect(() => limiter.enforce(refused, reply())).toThrow(RateLimitedError);
    await expect(limiter.beforeErrorReply(refused, reply())).resolves.toBeUndefined();
    expect(limiter.enforce(refused, reply())).toBeUndefined();

    // One rejection so far: the next is the second (still rate_limited), the one after it the third (banned).
    expect(() => limiter.enforce(request(`Bearer ${SECRET}`), reply())).toThrow(RateLimitedError);
    expect(() => limiter.enforce(request(`Bearer ${SECRET}`), reply())).toThrow(ApiKeyBannedError);
  });

  it('hands the throttler guard a refusal as a rejected promise, and lets operational routes through', async () => {
    const { limiter, throttler } = await setUp();
    await limiter.enforce(request(`Bearer ${SECRET}`), reply());
    await expect(throttler.canActivate(contextOf(request(`Bearer ${SECRET}`), reply()))).resolves.toBe(true);
    await expect(throttler.canActivate(contextOf(request(`Bearer ${SECRET}`), reply()))).rejects.toBeInstanceOf(RateLimitedError);
    const health = { ...request(), url: '/healthz' } as FastifyRequest;
    await expect(throttler.canActivate(contextOf(health, reply()))).resolves.toBe(true);
  });

  it('refuses a request without a valid key with WWW-Authenticate, and counts it per address', async () => {
    const { limiter, bearer } = await setUp();
    const res = reply();
    const anonymous = request('Bearer nope');
    expect(() => bearer.canActivate(contextOf(anonymous, res))).toThrow(UnauthorizedError);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="animal-store"');
    expect(limiter.enforce(anonymous, res)).toBeUndefined();
    expect(res.headers).toMatchObject({ 'x-ratelimit-limit': 1, 'x-ratelimit-remaining': 0 });
    expect(() => limiter.enforce(request(), reply())).toThrow(RateLimitedError);
  });
});
