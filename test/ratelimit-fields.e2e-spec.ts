import { Controller, Get } from '@nestjs/common';
import { Throttle } from '@nestjs/throttler';
import { Clock } from '../src/config/clock';
import { ApiClient, ApiResponse, expectErrorBody } from './support/api-client';
import { describeOnStore } from './support/describe-store';
import { FakeClock } from './support/fake-clock';
import { createTestApp, TestApp } from './support/test-app';

const MINUTE = 60_000;
const DAY = 86_400_000;

/** A route as the team would add one with a tighter minute of its own. */
@Controller({ path: 'scarce-things', version: '1' })
class ScarceThingsController {
  @Throttle({ default: { limit: 2, ttl: 60_000 } })
  @Get()
  listScarceThings(): string[] {
    return [];
  }
}

interface FieldMember {
  readonly name: string;
  readonly params: Record<string, number>;
}

/**
 * A strict reading of the two structured fields as this service writes them: a
 * List of quoted names, each with integer parameters.
 */
function parseField(value: unknown): FieldMember[] {
  expect(typeof value).toBe('string');
  return String(value)
    .split(', ')
    .map((member) => {
      const match = /^"([A-Za-z0-9@._-]+)"((?:;[a-z]+=\d+)+)$/.exec(member);
      if (!match) throw new Error(`Not a member of the form "name";k=1: ${member}`);
      const params = Object.fromEntries(
        match[2]
          .slice(1)
          .split(';')
          .map((param) => param.split('='))
          .map(([key, number]) => [key, Number(number)]),
      );
      return { name: match[1], params };
    });
}

interface IetfWindow {
  readonly name: string;
  readonly quota: number;
  readonly windowSeconds: number;
  readonly remaining: number;
  readonly resetSeconds: number;
}

/** Both fields of a response, joined by policy name; each names the same windows in the same order. */
function ietfWindows(response: ApiResponse): IetfWindow[] {
  const policies = parseField(response.headers['ratelimit-policy']);
  const states = parseField(response.headers['ratelimit']);
  expect(states.map((state) => state.name)).toEqual(policies.map((policy) => policy.name));
  return policies.map((policy, i) => {
    expect(Object.keys(policy.params)).toEqual(['q', 'w']);
    expect(Object.keys(states[i].params)).toEqual(['r', 't']);
    return {
      name: policy.name,
      quota: policy.params.q,
      windowSeconds: policy.params.w,
      remaining: states[i].params.r,
      resetSeconds: states[i].params.t,
    };
  });
}

/**
 * The X- trio describes the window that binds first (fewest left, on a tie the
 * later reset); the IETF fields must say the same of that window at `nowMs`.
 */
function expectConsistent(response: ApiResponse, nowMs: number): IetfWindow[] {
  const windows = ietfWindows(response);
  const binding = windows.reduce((best, w) =>
    w.remaining < best.remaining || (w.remaining === best.remaining && w.resetSeconds > best.resetSeconds) ? w : best,
  );
  expect({
    limit: Number(response.headers['x-ratelimit-limit']),
    remaining: Number(response.headers['x-ratelimit-remaining']),
    reset: Number(response.headers['x-ratelimit-reset']),
  }).toEqual({ limit: binding.quota, remaining: binding.remaining, reset: Math.ceil(nowMs / 1000) + binding.resetSeconds });
  if (response.status === 429) {
    const retryAfter = Number(response.headers['retry-after']);
    expect(Math.max(...windows.filter((w) => w.remaining === 0).map((w) => w.resetSeconds))).toBe(retryAfter);
  }
  return windows;
}

describeOnStore('IETF RateLimit-Policy and RateLimit fields', () => {
  const fixtures: TestApp[] = [];
  afterAll(() => Promise.all(fixtures.map((fixture) => fixture.close())));

  async function setUp(env: Record<string, string>) {
    const clock = new FakeClock(Date.UTC(2030, 0, 1, 12, 0, 0));
    const testApp = await createTestApp({ env, overrides: [{ provide: Clock, useValue: clock }], controllers: [ScarceThingsController] });
    fixtures.push(testApp);
    const keyClient = async (perMinute: number, perDay: number): Promise<ApiClient> => {
      const { secret } = await testApp.createKey({ plan: 'enterprise', name: 'fields', perMinute, perDay });
      return testApp.anonymous.withHeaders({ authorization: `Bearer ${secret}` });
    };
    return { testApp, clock, keyClient };
  }

  it('describes both windows on 200, 201, 400, 404 and a 429, consistent with the X- fields', async () => {
    const { clock, keyClient } = await setUp({});
    const client = await keyClient(5, 100);
    const start = clock.now();

    const listed = await client.get('/v1/pets');
    expect(listed.status).toBe(200);
    expect(expectConsistent(listed, clock.now())).toEqual([
      { name: 'minute', quota: 5, windowSeconds: 60, remaining: 4, resetSeconds: 60 },
      { name: 'day', quota: 100, windowSeconds: 86_400, remaining: 99, resetSeconds: 86_400 },
      { name: 'answers', quota: 50, windowSeconds: 60, remaining: 49, resetSeconds: 60 },
    ]);
    expect(listed.headers['ratelimit-policy']).toBe('"minute";q=5;w=60, "day";q=100;w=86400, "answers";q=50;w=60');
    expect(listed.headers['ratelimit']).toBe('"minute";r=4;t=60, "day";r=99;t=86400, "answers";r=49;t=60');

    clock.advance(10_000);
    const created = await client.post('/v1/pets', { name: 'Rex', categoryId: 1 });
    expect(created.status).toBe(201);
    expect(expectConsistent(created, clock.now()).map((w) => [w.name, w.remaining, w.resetSeconds])).toEqual([
      ['minute', 3, 50],
      ['day', 98, 86_390],
      ['answers', 48, 50],
    ]);

    const invalid = await client.post('/v1/pets', { name: '', categoryId: 1 });
    expectErrorBody(invalid, 400, 'validation_failed');
    expect(expectConsistent(invalid, clock.now()).map((w) => w.remaining)).toEqual([2, 97, 47]);

    const missing = await client.get('/v1/pets/999999');
    expectErrorBody(missing, 404, 'not_found');
    expect(expectConsistent(missing, clock.now()).map((w) => w.remaining)).toEqual([1, 96, 46]);

    const unknownRoute = await client.get('/v1/no-such-route');
    expectErrorBody(unknownRoute, 404, 'not_found');
    expect(expectConsistent(unknownRoute, clock.now()).map((w) => w.remaining)).toEqual([0, 95, 45]);

    clock.advance(5_000);
    const refused = await client.get('/v1/pets');
    expectErrorBody(refused, 429, 'rate_limited');
    expect(refused.headers['retry-after']).toBe('45');
    expect(refused.headers['ratelimit-policy']).toBe('"minute";q=5;w=60, "day";q=100;w=86400, "answers";q=50;w=60');
    expect(refused.headers['ratelimit']).toBe(`"minute";r=0;t=45, "day";r=95;t=${(DAY - 15_000) / 1000}, "answers";r=45;t=45`);
    expectConsistent(refused, clock.now());
    expect(clock.now() - start).toBe(15_000);
  });

  it('describes the address the request counts against on a 401', async () => {
    const { clock, testApp } = await setUp({ RATE_LIMIT_PLANS: '{"free":{"perMinute":7,"perDay":70}}' });
    const response = await testApp.anonymous.withHeaders({ authorization: 'Bearer not-a-key' }).get('/v1/pets');
    expectErrorBody(response, 401, 'unauthorized');
    expect(response.headers['ratelimit-policy']).toBe('"minute";q=7;w=60, "day";q=70;w=86400, "answers";q=70;w=60');
    expect(response.headers['ratelimit']).toBe('"minute";r=6;t=60, "day";r=69;t=86400, "answers";r=69;t=60');
    expectConsistent(response, clock.now());
  });

  it('names the day as the binding window when it has fewer left, in both kinds of field', async () => {
    const { clock, keyClient } = await setUp({});
    const client = await keyClient(3, 4);
    for (let i = 0; i < 3; i++) await client.get('/v1/pets');
    clock.advance(MINUTE);
    const last = await client.get('/v1/pets');
    expect(expectConsistent(last, clock.now()).map((w) => [w.name, w.remaining])).toEqual([
      ['minute', 2],
      ['day', 0],
      ['answers', 29],
    ]);
    expect(last.headers['x-ratelimit-limit']).toBe('4');
    clock.advance(1_000);
    const refused = await client.get('/v1/pets');
    expectErrorBody(refused, 429, 'rate_limited');
    expect(refused.headers['ratelimit']).toBe(`"minute";r=2;t=59, "day";r=0;t=${(DAY - MINUTE - 1_000) / 1000}, "answers";r=29;t=59`);
    expectConsistent(refused, clock.now());
  });

  it('while banned gives every window r=0 and t the ban\'s seconds left, as Retry-After and X-RateLimit-Reset do', async () => {
    const { clock, keyClient } = await setUp({ BAN_AFTER_REJECTIONS: '2', BAN_SECONDS: '120' });
    const client = await keyClient(1, 100);
    await client.get('/v1/pets');
    await client.get('/v1/pets');
    // Past the second of a burst, refusals count toward the ban.
    clock.advance(1_000);
    await client.get('/v1/pets');
    await client.get('/v1/pets');
    const banned = await client.get('/v1/pets');
    expectErrorBody(banned, 429, 'api_key_banned');
    expect(banned.headers['retry-after']).toBe('120');
    expect(banned.headers['ratelimit']).toBe('"minute";r=0;t=120, "day";r=0;t=120, "answers";r=0;t=120');
    expectConsistent(banned, clock.now());

    clock.advance(61_000);
    const later = await client.get('/v1/pets');
    expect(later.headers['retry-after']).toBe('59');
    expect(later.headers['ratelimit']).toBe('"minute";r=0;t=59, "day";r=0;t=59, "answers";r=0;t=59');
    expectConsistent(later, clock.now());
  });

  it('names a route\'s own @Throttle bucket after its window and handler', async () => {
    const { clock, keyClient } = await setUp({});
    const client = await keyClient(5, 100);
    const response = await client.get('/v1/scarce-things');
    expect(response.status).toBe(200);
    expect(response.headers['ratelimit-policy']).toBe('"minute@listScarceThings";q=2;w=60');
    expect(response.headers['ratelimit']).toBe('"minute@listScarceThings";r=1;t=60');
    expectConsistent(response, clock.now());
    // The route's bucket is its own: the plan's windows are untouched.
    expect((await client.get('/v1/pets')).headers['ratelimit']).toBe('"minute";r=4;t=60, "day";r=99;t=86400, "answers";r=49;t=60');
  });
});
