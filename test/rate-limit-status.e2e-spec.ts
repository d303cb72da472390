import { ApiClient, ApiResponse, expectErrorBody } from './support/api-client';
import { describeOnStore } from './support/describe-store';
import { createTestApp, TestApp } from './support/test-app';

interface Window {
  name: string;
  limit: number;
  remaining: number;
  reset: number;
}

interface RateLimitStatus {
  plan: string;
  account: { id: number };
  windows: Window[];
  ban: { until: number } | null;
}

/** Refusals within a second of the first count toward no ban: this spec's clock is the real one. */
const pastTheBurst = () => new Promise((resolve) => setTimeout(resolve, 1_000));

const remaining = (response: ApiResponse) => Number(response.headers['x-ratelimit-remaining']);

/** Each window's `r` in the RateLimit field, by name: `"minute";r=59;t=60, "day";r=999;t=86400`. */
const fieldRemaining = (response: ApiResponse): Record<string, number> =>
  Object.fromEntries([...String(response.headers.ratelimit).matchAll(/"([^"]+)";r=(\d+)/g)].map(([, name, r]) => [name, Number(r)]));

describeOnStore('GET /v1/rate_limit', () => {
  let testApp: TestApp;
  const newKey = async (input: { scopes?: string[]; account?: string } = {}) => {
    const { accountId, secret } = await testApp.createKey({ plan: 'free', ...input });
    return { accountId, client: testApp.anonymous.withHeaders({ authorization: `Bearer ${secret}` }) };
  };
  const statusOf = (client: ApiClient) => client.get<RateLimitStatus>('/v1/rate_limit');

  beforeAll(async () => {
    testApp = await createTestApp({
      env: { RATE_LIMIT_PLANS: '{"free":{"perMinute":40,"perDay":500}}', BAN_AFTER_REJECTIONS: '2', BAN_SECONDS: '600' },
    });
  });
  afterAll(() => testApp?.close());

  it("tells a key never used its plan, account and whole quota, for a key of any scope", async () => {
    const { accountId, client } = await newKey({ scopes: ['pets:write'] });
    const before = Math.floor(Date.now() / 1000);
    const status = await statusOf(client);
    const after = Math.ceil(Date.now() / 1000);
    expect(status.status).toBe(200);
    expect(status.body).toEqual({
      plan: 'free',
      account: { id: accountId },
      windows: [
        { name: 'minute', limit: 40, remaining: 40, reset: expect.any(Number) },
        { name: 'day', limit: 500, remaining: 500, reset: expect.any(Number) },
        { name: 'answers', limit: 400, remaining: 400, reset: expect.any(Number) },
      ],
      ban: null,
    });
    const [minute, day] = status.body.windows;
    expect(minute.reset - before).toBeGreaterThanOrEqual(60);
    expect(minute.reset - after).toBeLessThanOrEqual(60);
    expect(day.reset - before).toBeGreaterThanOrEqual(86_400);
    expect(day.reset - after).toBeLessThanOrEqual(86_400);
  });

  it('agrees with the headers of the request before it and after it, and leaves the X-RateLimit-Remaining of /v1/pets unchanged', async () => {
    const { client } = await newKey();
    await client.get('/v1/pets');
    const before = await client.get('/v1/pets');
    expect(remaining(before)).toBe(38);
    const status = await statusOf(client);
    const after = await client.get('/v1/pets');

    const [minute, day] = status.body.windows;
    expect(minute).toEqual({ name: 'minute', limit: 40, remaining: 38, reset: Number(before.headers['x-ratelimit-reset']) });
    expect(fieldRemaining(before)).toEqual({ minute: minute.remaining, day: day.remaining, answers: status.body.windows[2].remaining });
    expect(day.remaining).toBe(498);
    expect(remaining(after)).toBe(remaining(before) - 1);
    expect(after.headers['x-ratelimit-reset']).toBe(before.headers['x-ratelimit-reset']);
    expect(fieldRemaining(after)).toEqual({ minute: minute.remaining - 1, day: day.remaining - 1, answers: status.body.windows[2].remaining - 1 });
  });

  it("shows the account's shared quota to each of its keys", async () => {
    const first = await newKey({ account: 'acme-status' });
    const second = await newKey({ account: 'acme-status' });
    await first.client.get('/v1/pets');
    const status = await statusOf(second.client);
    expect(status.body.account).toEqual({ id: first.accountId });
    expect(status.body.windows.map((window) => window.remaining)).toEqual([39, 499, 399]);
  });

  it('is limited by a minute and a ban of its own, which its headers describe: the 31st in a minute is 429, and the plan is untouched', async () => {
    const { client } = await newKey();
    for (let i = 1; i <= 30; i++) {
      const status = await statusOf(client);
      expect({ i, status: status.status, limit: status.headers['x-ratelimit-limit'], remaining: remaining(status) }).toEqual({
        i,
        status: 200,
        limit: '30',
        remaining: 30 - i,
      });
      if (i === 1) {
        expect(status.headers['ratelimit-policy']).toBe('"minute@getRateLimit";q=30;w=60');
        expect(status.headers.ratelimit).toMatch(/^"minute@getRateLimit";r=29;t=(59|60)$/);
      }
    }
    const refused = await statusOf(client);
    expectErrorBody(refused, 429, 'rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Flooding it past the second of a burst bans the key on this route alone.
    await pastTheBurst();
    expectErrorBody(await statusOf(client), 429, 'rate_limited');
    expectErrorBody(await statusOf(client), 429, 'rate_limited');
    expectErrorBody(await statusOf(client), 429, 'api_key_banned');
    const pets = await client.get('/v1/pets');
    expect(pets.status).toBe(200);
    expect(remaining(pets)).toBe(39);
  });

  it('answers a banned key with its ban, in step with the 429 its other requests get, and its windows as they truly stand', async () => {
    const { client } = await newKey({ account: 'banned-status' });
    const sibling = await newKey({ account: 'banned-status' });
    for (let i = 0; i < 41; i++) await client.get('/v1/pets?limit=1');
    await pastTheBurst();
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await client.get('/v1/pets?limit=1'));
    const banned = answers[2];
    expectErrorBody(banned, 429, 'api_key_banned');

    const status = await statusOf(client);
    expect(status.status).toBe(200);
    const until = Number(banned.headers['x-ratelimit-reset']);
    expect(status.body.ban).toEqual({ until });
    // The ban is reported apart: each window reads as the account spent it, the day far from spent.
    expect(status.body.windows).toEqual([
      { name: 'minute', limit: 40, remaining: 0, reset: expect.any(Number) },
      { name: 'day', limit: 500, remaining: 460, reset: expect.any(Number) },
      { name: 'answers', limit: 400, remaining: 360, reset: expect.any(Number) },
    ]);
    const [minute, day] = status.body.windows;
    expect(minute.reset).toBeLessThan(until);
    expect(day.reset).toBeGreaterThan(until);
    expectErrorBody(await client.get('/v1/pets?limit=1'), 429, 'api_key_banned');
    // The ban is the key's: its sibling sees the account's full minute, and no ban.
    const siblings = await statusOf(sibling.client);
    expect(siblings.body.ban).toBeNull();
    expect(siblings.body.windows[0]).toMatchObject({ name: 'minute', remaining: 0 });
  });

  it('needs a key: without one it is 401 with the challenge', async () => {
    const response = await testApp.anonymous.request({ url: '/v1/rate_limit', remoteAddress: '198.51.100.61' });
    expectErrorBody(response, 401, 'unauthorized');
    expect(response.headers['www-authenticate']).toBe('Bearer realm="animal-store"');
  });
});
