import { DataSource } from 'typeorm';
import { KEY_CACHE_TTL_MS } from '../src/auth/application/api-key-authenticator';
import { ApiKeysService } from '../src/auth/application/api-keys.service';
import { Clock } from '../src/config/clock';
import { ApiClient, ApiRequest, ApiResponse, expectErrorBody } from './support/api-client';
import { describeOnStore } from './support/describe-store';
import { FakeClock } from './support/fake-clock';
import { createTestApp, TestApp } from './support/test-app';

const MINUTE = 60_000;
const DAY = 86_400_000;

/** One app whose clock (rate-limit windows, key cache) the spec moves by hand. */
async function appWithClock(env: Record<string, string>) {
  const clock = new FakeClock(Date.UTC(2030, 0, 1, 12, 0, 0));
  const testApp = await createTestApp({ env, overrides: [{ provide: Clock, useValue: clock }] });
  const keyClient = async (input: Parameters<TestApp['createKey']>[0]) => {
    const { id, secret } = await testApp.createKey(input);
    return { id, client: testApp.anonymous.withHeaders({ authorization: `Bearer ${secret}` }) };
  };
  return { testApp, clock, keyClient };
}

function rateHeaders(response: ApiResponse) {
  return {
    limit: Number(response.headers['x-ratelimit-limit']),
    remaining: Number(response.headers['x-ratelimit-remaining']),
    reset: Number(response.headers['x-ratelimit-reset']),
  };
}

function expectRateHeaders(response: ApiResponse, expected: { limit: number; remaining: number; reset?: number }): void {
  for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
    expect(String(response.headers[name])).toMatch(/^\d+$/);
  }
  expect(rateHeaders(response)).toEqual({ reset: expect.any(Number), ...expected });
}

function expectRejected(response: ApiResponse, code: 'rate_limited' | 'api_key_banned', retryAfter: number): void {
  expectErrorBody(response, 429, code);
  expect(response.headers['retry-after']).toBe(String(retryAfter));
}

async function send(client: ApiClient, times: number, request: ApiRequest = { url: '/v1/pets' }): Promise<ApiResponse[]> {
  const responses = [];
  for (let i = 0; i < times; i++) responses.push(await client.request(request));
  return responses;
}

describeOnStore('rate limits', () => {
  const fixtures: TestApp[] = [];
  afterAll(() => Promise.all(fixtures.map((fixture) => fixture.close())));

  async function setUp(env: Record<string, string> = {}) {
    const made = await appWithClock(env);
    fixtures.push(made.testApp);
    return made;
  }

  it('counts a key across every route in one quota and answers 429 with Retry-After once it is used up', async () => {
    const { clock, keyClient } = await setUp({ RATE_LIMIT_PLANS: '{"free":{"perMinute":3,"perDay":100}}' });
    const { client } = await keyClient({ plan: 'free' });
    const resetAt = Math.ceil((clock.now() + MINUTE) / 1000);
    expectRateHeaders(await client.get('/v1/pets'), { limit: 3, remaining: 2, reset: resetAt });
    expectRateHeaders(await client.post('/v1/pets', { name: 'Rex', categoryId: 1 }), { limit: 3, remaining: 1, reset: resetAt });
    expectRateHeaders(await client.get('/v1/pets/999'), { limit: 3, remaining: 0, reset: resetAt });
    clock.advance(10_000);
    const refused = await client.get('/v1/pets');
    expectRejected(refused, 'rate_limited', 50);
    expectRateHeaders(refused, { limit: 3, remaining: 0, reset: resetAt });
    clock.advance(50_000);
    expectRateHeaders(await client.get('/v1/pets'), { limit: 3, remaining: 2, reset: Math.ceil((clock.now() + MINUTE) / 1000) });
  });

  it('keeps keys apart', async () => {
    const { keyClient } = await setUp({ RATE_LIMIT_PLANS: '{"free":{"perMinute":2,"perDay":100}}' });
    const first = await keyClient({ plan: 'free' });
    const second = await keyClient({ plan: 'free' });
    await send(first.client, 2);
    expectRejected(await first.client.get('/v1/pets'), 'rate_limited', 60);
    const other = await second.client.get('/v1/pets');
    expect(other.status).toBe(200);
    expectRateHeaders(other, { limit: 2, remaining: 1 });
  });

  it('does not count rejected requests', async () => {
    const { clock, keyClient } = await setUp({ RATE_LIMIT_PLANS: '{"free":{"perMinute":3,"perDay":7}}', BAN_AFTER_REJECTIONS: '100' });
    const { client } = await keyClient({ plan: 'free' });
    await send(client, 3);
    const refused = await send(client, 10);
    expect(refused.map((r) => r.status)).toEqual(Array(10).fill(429));
    clock.advance(MINUTE);
    const accepted = await send(client, 3);
    expect(accepted.map((r) => r.status)).toEqual([200, 200, 200]);
    // Six counted of the day's seven: the ten refusals used none of it.
    expectRateHeaders(accepted[2], { limit: 3, remaining: 0 });
    expect((await client.get('/v1/pets')).status).toBe(429);
    clock.advance(MINUTE);
    expectRateHeaders(await client.get('/v1/pets'), { limit: 7, remaining: 0 });
  });

  it('lets a small daily quota bind before the minute window', async () => {
    const { clock, keyClient } = await setUp({ RATE_LIMIT_PLANS: '{"free":{"perMinute":5,"perDay":8}}' });
    const { client } = await keyClient({ plan: 'free' });
    const dayReset = Math.ceil((clock.now() + DAY) / 1000);
    const first = await send(client, 5);
    expectRateHeaders(first[0], { limit: 5, remaining: 4 });
    expectRateHeaders(first[4], { limit: 5, remaining: 0 });
    clock.advance(MINUTE);
    const second = await send(client, 3);
    expectRateHeaders(second[0], { limit: 8, remaining: 2, reset: dayReset });
    expectRateHeaders(second[2], { limit: 8, remaining: 0, reset: dayReset });
    const refused = await client.get('/v1/pets');
    expectRejected(refused, 'rate_limited', Math.ceil((DAY - MINUTE) / 1000));
    expectRateHeaders(refused, { limit: 8, remaining: 0, reset: dayReset });
  });

  it('bans a key that keeps sending while limited, then lets it back', async () => {
    const { clock, keyClient } = await setUp({
      RATE_LIMIT_PLANS: '{"free":{"perMinute":2,"perDay":100}}',
      BAN_AFTER_REJECTIONS: '3',
      BAN_SECONDS: '120',
    });
    const { client } = await keyClient({ plan: 'free' });
    const other = await keyClient({ plan: 'free' });
    await send(client, 2);
    // The first second of refusals is a burst, which counts toward no ban; past it, each refusal does.
    for (const response of await send(client, 10)) expectRejected(response, 'rate_limited', 60);
    clock.advance(1_000);
    for (const response of await send(client, 3)) expectRejected(response, 'rate_limited', 59);
    const banStart = clock.now();
    const banned = await client.get('/v1/pets');
    expectRejected(banned, 'api_key_banned', 120);
    expectRateHeaders(banned, { limit: 2, remaining: 0, reset: Math.ceil((banStart + 120_000) / 1000) });
    expect((banned.body as { message: string }).message).toMatch(/banned/i);
    clock.advance(61_000);
    expectRejected(await client.get('/v1/pets'), 'api_key_banned', 59);
    expect((await other.client.get('/v1/pets')).status).toBe(200);
    clock.set(banStart + 120_000);
    const back = await client.get('/v1/pets');
    expect(back.status).toBe(200);
    expectRateHeaders(back, { limit: 2, remaining: 1 });
  });

  it('counts the keys of one account in one shared quota, while a key of another account is unaffected', async () => {
    const { keyClient } = await setUp({ RATE_LIMIT_PLANS: '{"free":{"perMinute":3,"perDay":100}}', BAN_AFTER_REJECTIONS: '100' });
    const first = await keyClient({ plan: 'free', account: 'acme' });
    const second = await keyClient({ plan: 'free', account: 'acme' });
    const outsider = await keyClient({ plan: 'free', account: 'globex' });
    expectRateHeaders(await first.client.get('/v1/pets'), { limit: 3, remaining: 2 });
    expectRateHeaders(await second.client.get('/v1/pets'), { limit: 3, remaining: 1 });
    expectRateHeaders(await first.client.get('/v1/pets'), { limit: 3, remaining: 0 });
    expectRejected(await second.client.get('/v1/pets'), 'rate_limited', 60);
    expectRejected(await first.client.get('/v1/pets'), 'rate_limited', 60);
    const other = await outsider.client.get('/v1/pets');
    expect(other.status).toBe(200);
    expectRateHeaders(other, { limit: 3, remaining: 2 });
  });

  it("bans only the key that keeps sending: its sibling in the account keeps the account's quota", async () => {
    const { clock, keyClient } = await setUp({
      RATE_LIMIT_PLANS: '{"free":{"perMinute":2,"perDay":100}}',
      BAN_AFTER_REJECTIONS: '3',
      BAN_SECONDS: '120',
    });
    const noisy = await keyClient({ plan: 'free', account: 'initech' });
    const sibling = await keyClient({ plan: 'free', account: 'initech' });
    await send(noisy.client, 2);
    expectRejected(await noisy.client.get('/v1/pets'), 'rate_limited', 60);
    clock.advance(1_000);
    for (const response of await send(noisy.client, 3)) expectRejected(response, 'rate_limited', 59);
    expectRejected(await noisy.client.get('/v1/pets'), 'api_key_banned', 120);
    // The account's minute is still full, so the sibling waits for it, and is not banned for the noisy key's rejections.
    expectRejected(await sibling.client.get('/v1/pets'), 'rate_limited', 59);
    clock.advance(MINUTE);
    expect((await sibling.client.get('/v1/pets')).status).toBe(200);
    expectRejected(await noisy.client.get('/v1/pets'), 'api_key_banned', 60);
  });

  it("applies set-plan to every key of the account within the key cache time", async () => {
    const { testApp, clock, keyClient } = await setUp({ RATE_LIMIT_PLANS: '{"free":{"perMinute":2,"perDay":100}}' });
    const first = await keyClient({ plan: 'free', account: 'hooli' });
    const second = await keyClient({ plan: 'free', account: 'hooli' });
    await send(first.client, 2);
    expectRejected(await second.client.get('/v1/pets'), 'rate_limited', 60);
    await testApp.app.get(ApiKeysService).setPlan(first.id, { plan: 'pro' });
    clock.advance(KEY_CACHE_TTL_MS);
    expectRateHeaders(await second.client.get('/v1/pets'), { limit: 300, remaining: 297 });
    expectRateHeaders(await first.client.get('/v1/pets'), { limit: 300, remaining: 296 });
  });

  it('limits callers without a valid key per client address with the Free plan numbers', async () => {
    const { testApp } = await setUp({ RATE_LIMIT_PLANS: '{"free":{"perMinute":4,"perDay":100}}' });
    // Verified by this instance first, so that it is served from an address over its keyless limits too.
    expect((await testApp.client.get('/v1/pets')).status).toBe(200);
    const wrongKey = { authorization: `Bearer ask_test_${'x'.repeat(43)}` };
    const fromA = { url: '/v1/pets', remoteAddress: '203.0.113.7' };
    const responses = [
      ...(await send(testApp.anonymous, 2, fromA)),
      ...(await send(testApp.anonymous, 2, { ...fromA, headers: wrongKey })),
    ];
    responses.forEach((response, i) => {
      expectErrorBody(response, 401, 'unauthorized');
      expectRateHeaders(response, { limit: 4, remaining: 3 - i });
    });
    expectRejected(await testApp.anonymous.request(fromA), 'rate_limited', 60);
    const fromB = await testApp.anonymous.request({ url: '/v1/pets', remoteAddress: '198.51.100.2' });
    expectErrorBody(fromB, 401, 'unauthorized');
    expectRateHeaders(fromB, { limit: 4, remaining: 3 });
    const keyed = await testApp.client.request({ url: '/v1/pets', remoteAddress: '203.0.113.7' });
    expect(keyed.status).toBe(200);
  });

  it('applies a plan change within the key cache time, keeping the usage so far', async () => {
    const { testApp, clock, keyClient } = await setUp({ RATE_LIMIT_PLANS: '{"free":{"perMinute":2,"perDay":100}}' });
    const { id, client } = await keyClient({ plan: 'free' });
    await send(client, 2);
    expectRejected(await client.get('/v1/pets'), 'rate_limited', 60);
    await testApp.app.get(ApiKeysService).setPlan(id, { plan: 'business' });
    clock.advance(KEY_CACHE_TTL_MS);
    const upgraded = await client.get('/v1/pets');
    expect(upgraded.status).toBe(200);
    expectRateHeaders(upgraded, { limit: 1000, remaining: 997 });
  });

  describe('headers on every status', () => {
    let fixture: Awaited<ReturnType<typeof setUp>>;
    let client: ApiClient;

    beforeAll(async () => {
      fixture = await setUp({ RATE_LIMIT_PLANS: '{"free":{"perMinute":30,"perDay":1000}}', BAN_AFTER_REJECTIONS: '1000' });
      client = (await fixture.keyClient({ plan: 'free' })).client;
    });

    const json = { 'content-type': 'application/json' };
    const cases: Array<[number, string, ApiRequest]> = [
      [200, 'a list', { url: '/v1/pets' }],
      [201, 'a create', { method: 'POST', url: '/v1/pets', payload: { name: 'Rex', categoryId: 1 } }],
      [400, 'a bad limit', { url: '/v1/pets?limit=0' }],
      [400, 'malformed JSON', { method: 'POST', url: '/v1/pets', payload: '{"name":', headers: json }],
      [404, 'an unknown pet', { url: '/v1/pets/424242' }],
      [404, 'an unknown /v1 address', { url: '/v1/store/carts' }],
      [413, 'a body too large', { method: 'POST', url: '/v1/pets', payload: JSON.stringify({ name: 'x'.repeat(20_000), categoryId: 1 }), headers: json }],
      [415, 'a text/plain body', { method: 'POST', url: '/v1/pets', payload: 'name=Rex', headers: { 'content-type': 'text/plain' } }],
    ];

    it.each(cases)('%i for %s counts the request and carries the headers', async (status, _label, request) => {
      const before = rateHeaders(await client.get('/v1/pets'));
      const response = await client.request(request);
      expect(response.status).toBe(status);
      expectRateHeaders(response, { limit: 30, remaining: before.remaining - 1 });
    });

    it('401 carries them too', async () => {
      const response = await fixture.testApp.anonymous.get('/v1/pets', { authorization: 'Basic x' });
      expectErrorBody(response, 401, 'unauthorized');
      expectRateHeaders(response, { limit: 30, remaining: expect.any(Number) as unknown as number });
    });

    it('429 on an address that fails before routing (unknown path, unreadable body) too', async () => {
      const rest = rateHeaders(await client.get('/v1/pets')).remaining;
      await send(client, rest);
      for (const [, , request] of cases.slice(5)) {
        const response = await client.request(request);
        expectRejected(response, 'rate_limited', 60);
        expectRateHeaders(response, { limit: 30, remaining: 0 });
      }
    });

    it('500 carries them too', async () => {
      const broken = await setUp({ RATE_LIMIT_PLANS: '{"free":{"perMinute":30,"perDay":1000}}' });
      const brokenClient = (await broken.keyClient({ plan: 'free' })).client;
      await broken.testApp.app.get(DataSource).query('DROP TABLE pets');
      const response = await brokenClient.get('/v1/pets');
      expectErrorBody(response, 500, 'internal_error');
      expectRateHeaders(response, { limit: 30, remaining: 29 });
    });
  });
});
