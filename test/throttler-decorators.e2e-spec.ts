import { Controller, Get } from '@nestjs/common';
import { SkipThrottle, Throttle } from '@nestjs/throttler';
import { ApiClient, ApiResponse, expectErrorBody } from './support/api-client';
import { describeOnStore } from './support/describe-store';
import { createTestApp, TestApp } from './support/test-app';

/** Routes as the team would add them later: the first has no rate-limit code at all. */
@Controller({ path: 'things', version: '1' })
class ThingsController {
  @Get()
  list(): string[] {
    return [];
  }

  @SkipThrottle()
  @Get('unlimited')
  unlimited(): string[] {
    return [];
  }

  @Throttle({ default: { limit: 2, ttl: 60_000 } })
  @Get('scarce')
  scarce(): string[] {
    return [];
  }
}

const limitHeaders = (response: ApiResponse) => ({
  limit: response.headers['x-ratelimit-limit'],
  remaining: response.headers['x-ratelimit-remaining'],
});

describeOnStore('@nestjs/throttler decorators on new routes', () => {
  let testApp: TestApp;
  let client: ApiClient;

  beforeAll(async () => {
    testApp = await createTestApp({
      env: { RATE_LIMIT_PLANS: '{"free":{"perMinute":5,"perDay":100}}' },
      controllers: [ThingsController],
    });
    const { secret } = await testApp.createKey({ plan: 'free' });
    client = testApp.anonymous.withHeaders({ authorization: `Bearer ${secret}` });
  });
  afterAll(() => testApp?.close());

  it('limits a new controller by plan with no extra code, in the same quota as every other route', async () => {
    expect(limitHeaders(await client.get('/v1/things'))).toEqual({ limit: '5', remaining: '4' });
    expect(limitHeaders(await client.get('/v1/pets'))).toEqual({ limit: '5', remaining: '3' });
  });

  it('leaves a @SkipThrottle() route unlimited and without rate-limit headers', async () => {
    for (let i = 0; i < 8; i++) {
      const response = await client.get('/v1/things/unlimited');
      expect(response.status).toBe(200);
      expect(response.headers).not.toHaveProperty('x-ratelimit-limit');
      expect(response.headers).not.toHaveProperty('x-ratelimit-remaining');
      expect(response.headers).not.toHaveProperty('x-ratelimit-reset');
    }
  });

  it('leaves the operational routes (@SkipThrottle() controllers) unlimited and without rate-limit headers', async () => {
    for (const url of ['/healthz', '/metrics']) {
      const response = await testApp.anonymous.get(url);
      expect(response.status).toBe(200);
      expect(response.headers).not.toHaveProperty('x-ratelimit-limit');
    }
  });

  it('limits a @Throttle({ default: { limit: 2, ttl: 60_000 } }) route at 2 per minute, in a bucket of its own', async () => {
    const { secret } = await testApp.createKey({ plan: 'free' });
    const fresh = testApp.anonymous.withHeaders({ authorization: `Bearer ${secret}` });
    expect(limitHeaders(await fresh.get('/v1/things/scarce'))).toEqual({ limit: '2', remaining: '1' });
    expect(limitHeaders(await fresh.get('/v1/things/scarce'))).toEqual({ limit: '2', remaining: '0' });
    const refused = await fresh.get('/v1/things/scarce');
    expectErrorBody(refused, 429, 'rate_limited');
    expect(refused.headers['retry-after']).toBe('60');
    // The route's minute is a bucket of its own: the plan's windows across the API are still untouched.
    expect(limitHeaders(await fresh.get('/v1/things'))).toEqual({ limit: '5', remaining: '4' });
  });
});
