import { KEY_CACHE_TTL_MS, KeyCacheBounds } from '../../src/auth/application/api-key-authenticator';
import { ApiKeysService } from '../../src/auth/application/api-keys.service';
import { ApiKeyRepository } from '../../src/auth/domain/api-key.repository';
import { generateApiKeySecret } from '../../src/auth/domain/api-key-secret';
import { Clock } from '../../src/config/clock';
import { RateLimitStore } from '../../src/rate-limit/domain/rate-limit-store';
import { MemoryRateLimitStore } from '../../src/rate-limit/infrastructure/memory-rate-limit.store';
import { ApiClient, ApiResponse, expectErrorBody, nextLink } from './api-client';
import { FakeClock } from './fake-clock';
import { createTestApp, TestApp } from './test-app';
import type { TestStore } from './test-database';
import { deleteKeysUnder, randomKeyPrefix, TEST_REDIS_URL } from './test-redis';

/** Where the counters of the apps of these scenarios live. */
export interface HardeningTarget {
  readonly store?: TestStore;
  /** In Redis (REDIS_URL, each app under a prefix of its own), else in the process's memory. */
  readonly redis: boolean;
}

/** A bound far below the defaults, so that a flood a spec can send goes past it. */
const FLOOD_BOUND = 100;

/**
 * The rate limits' hardened edges against the running app, each scenario on
 * an app of its own whose clock (windows, key cache) the scenario moves: a
 * burst is refused, never banned; a client that keeps sending is; a failing
 * address's keys are refused before any lookup; a keyless flood evicts
 * nothing keyed. Run without Redis by an e2e spec and with it by an
 * integration spec, on both stores.
 */
export function rateLimitHardeningScenarios(target: HardeningTarget): void {
  const fixtures: TestApp[] = [];
  const prefixes: string[] = [];
  afterAll(async () => {
    await Promise.all(fixtures.map((fixture) => fixture.close()));
    await Promise.all(prefixes.map((prefix) => deleteKeysUnder(prefix)));
  });

  async function setUp(env: Record<string, string> = {}, overrides: Array<{ provide: unknown; useValue: unknown }> = []) {
    const clock = new FakeClock(Date.UTC(2030, 0, 1, 12, 0, 0));
    const redisEnv: Record<string, string> = {};
    if (target.redis) {
      prefixes.push(randomKeyPrefix());
      Object.assign(redisEnv, { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefixes[prefixes.length - 1] });
    }
    const testApp = await createTestApp({ store: target.store, env: { ...redisEnv, ...env }, overrides: [{ provide: Clock, useValue: clock }, ...overrides] });
    fixtures.push(testApp);
    const keyClient = async (input: Parameters<TestApp['createKey']>[0]) => {
      const { secret } = await testApp.createKey(input);
      return testApp.anonymous.withHeaders({ authorization: `Bearer ${secret}` });
    };
    const lookups = jest.spyOn(testApp.app.get(ApiKeyRepository), 'findByHash');
    return { testApp, clock, keyClient, lookups };
  }

  it('answers 200 creates sent at once by an enterprise key with 201s and 429 rate_limited, never a ban, stores exactly the 201s, and takes the rest after Retry-After', async () => {
    const { testApp, clock, keyClient } = await setUp();
    const client = await keyClient({ plan: 'enterprise', perMinute: 100_000_000, perDay: 1_000_000_000 });
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => createPet(client, `burst ${i}`)));
    const refused = expectRefusedNeverBanned(answers, 201);
    expect(await countPets(testApp)).toBe(200 - refused.length);

    clock.advance(longestRetryAfter(answers) * 1000);
    // The refused ones again, fewer at once than any plan's concurrency cap.
    for (let at = 0; at < refused.length; at += 4) {
      const again = await Promise.all(refused.slice(at, at + 4).map((i) => createPet(client, `burst ${i}`)));
      expect(again.map((response) => response.status)).toEqual(again.map(() => 201));
    }
    expect(await countPets(testApp)).toBe(200);
  });

  it("answers 200 creates sent at once by a free key within its minute and refuses the rest, never banning it, and serves it again after Retry-After", async () => {
    const { testApp, clock, keyClient } = await setUp();
    const client = await keyClient({ plan: 'free' });
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => createPet(client, `burst ${i}`)));
    const refused = expectRefusedNeverBanned(answers, 201);
    // Far more refusals than BAN_AFTER_REJECTIONS (30), all within the burst's second.
    expect(refused.length).toBeGreaterThanOrEqual(140);
    const stored = await countPets(testApp);
    expect(stored).toBe(200 - refused.length);
    // Only the creates served spent the minute: a refusal, the rate limit's or the concurrency cap's, spends none.
    const { windows } = (await client.get('/v1/rate_limit')).body as { windows: Array<{ name: string; remaining: number }> };
    expect(windows).toContainEqual(expect.objectContaining({ name: 'minute', remaining: 60 - stored }));

    clock.advance(longestRetryAfter(answers) * 1000);
    const served = await createPet(client, 'after the wait');
    expect(served.status).toBe(201);
    expect(await countPets(testApp)).toBe(stored + 1);
  });

  it('bans a client that keeps sending past the first second of refusals, as before', async () => {
    const { clock, keyClient } = await setUp({ RATE_LIMIT_PLANS: '{"free":{"perMinute":5,"perDay":1000}}', BAN_AFTER_REJECTIONS: '3' });
    const client = await keyClient({ plan: 'free' });
    const burst = await Promise.all(Array.from({ length: 100 }, () => client.get('/v1/pets')));
    expectRefusedNeverBanned(burst, 200);

    clock.advance(1_000);
    for (let i = 0; i < 3; i++) expectErrorBody(await client.get('/v1/pets'), 429, 'rate_limited');
    const banned = await client.get('/v1/pets');
    expectErrorBody(banned, 429, 'api_key_banned');
    expect(banned.headers['retry-after']).toBe('900');
    clock.advance(2_000);
    const still = await client.get('/v1/pets');
    expectErrorBody(still, 429, 'api_key_banned');
    expect(still.headers['retry-after']).toBe('898');
  });

  it("refuses the keys of an address over its keyless limits before any lookup, while a key this instance verified is served from it, and an address that has not failed is never slowed", async () => {
    const { testApp, clock, keyClient, lookups } = await setUp({ RATE_LIMIT_PLANS: '{"free":{"perMinute":3,"perDay":100}}' });
    const failing = { remoteAddress: '203.0.113.7' };
    const verifiedKey = await keyClient({ plan: 'pro' });
    const strangerKey = await keyClient({ plan: 'pro' });
    expect((await verifiedKey.request({ url: '/v1/pets', ...failing })).status).toBe(200);
    for (let i = 0; i < 3; i++) {
      expectErrorBody(await guess(testApp.anonymous, failing.remoteAddress), 401, 'unauthorized');
    }
    const lookupsWhenOver = lookups.mock.calls.length;

    for (let i = 0; i < 20; i++) {
      const refused = await guess(testApp.anonymous, failing.remoteAddress);
      expectErrorBody(refused, 429, 'rate_limited');
      expect(refused.headers).toMatchObject({ 'retry-after': '60', 'x-ratelimit-limit': '3', 'x-ratelimit-remaining': '0' });
      expect(String(refused.headers['x-ratelimit-reset'])).toMatch(/^\d+$/);
    }
    // A valid key this instance never verified is, from this address, one more unknown key.
    expectErrorBody(await strangerKey.request({ url: '/v1/pets', ...failing }), 429, 'rate_limited');
    // The operational endpoints, which the rate limits skip, look no key up from anyone.
    const probe = await testApp.anonymous.request({ url: '/healthz', remoteAddress: '198.51.100.9', headers: { authorization: `Bearer ${generateApiKeySecret('test')}` } });
    expect(probe.status).toBe(200);
    expect(lookups.mock.calls.length).toBe(lookupsWhenOver);

    // Past the key cache's time the verified key is looked up again, as usual, and served.
    clock.advance(KEY_CACHE_TTL_MS);
    const served = await verifiedKey.request({ url: '/v1/pets', ...failing });
    expect(served.status).toBe(200);
    expect(served.headers['x-ratelimit-limit']).toBe('300');
    expect(lookups.mock.calls.length).toBe(lookupsWhenOver + 1);
    // From an address that has not failed, the stranger's key is looked up and served at once.
    expect((await strangerKey.request({ url: '/v1/pets', remoteAddress: '198.51.100.2' })).status).toBe(200);
    expect(lookups.mock.calls.length).toBe(lookupsWhenOver + 2);
  });

  it("counts revoked and expired keys in their address's keyless windows", async () => {
    const { testApp, clock } = await setUp({ RATE_LIMIT_PLANS: '{"free":{"perMinute":3,"perDay":100}}' });
    const revoked = await testApp.createKey({ plan: 'pro' });
    await testApp.app.get(ApiKeysService).revoke(revoked.id);
    const expiring = await testApp.createKey({ plan: 'pro', expiresInMs: 1_000 });
    clock.advance(1_000);
    const remoteAddress = '192.0.2.44';
    const answers = [];
    for (const { secret } of [revoked, expiring, revoked]) {
      answers.push(await testApp.anonymous.request({ url: '/v1/pets', remoteAddress, headers: { authorization: `Bearer ${secret}` } }));
    }
    expect(answers.map((answer) => [answer.status, answer.headers['x-ratelimit-limit'], answer.headers['x-ratelimit-remaining']])).toEqual([
      [401, '3', '2'],
      [401, '3', '1'],
      [401, '3', '0'],
    ]);
    expectErrorBody(await testApp.anonymous.request({ url: '/v1/pets', remoteAddress, headers: { authorization: `Bearer ${expiring.secret}` } }), 429, 'rate_limited');
  });

  it("leaves an account's counters, a key's ban and a cached key intact through a keyless flood of more addresses than the bounds", async () => {
    const memoryBound = target.redis ? [] : [{ provide: RateLimitStore, useValue: new MemoryRateLimitStore({ maxKeys: FLOOD_BOUND, maxAddresses: FLOOD_BOUND }) }];
    const { testApp, clock, keyClient, lookups } = await setUp(
      { RATE_LIMIT_PLANS: '{"free":{"perMinute":10,"perDay":1000}}', BAN_AFTER_REJECTIONS: '3' },
      [{ provide: KeyCacheBounds, useValue: new KeyCacheBounds(FLOOD_BOUND) }, ...memoryBound],
    );
    const counted = await keyClient({ plan: 'free' });
    const noisy = await keyClient({ plan: 'free' });
    for (let i = 0; i < 4; i++) expect((await counted.get('/v1/pets')).status).toBe(200);
    for (let i = 0; i < 11; i++) await noisy.get('/v1/pets');
    clock.advance(1_000);
    for (let i = 0; i < 4; i++) await noisy.get('/v1/pets');
    expectErrorBody(await noisy.get('/v1/pets'), 429, 'api_key_banned');
    const lookupsBefore = lookups.mock.calls.length;

    for (let i = 0; i < 3 * FLOOD_BOUND; i++) {
      expectErrorBody(await guess(testApp.anonymous, `10.9.${i >> 8}.${i & 255}`), 401, 'unauthorized');
    }
    expect(lookups.mock.calls.length).toBe(lookupsBefore + 3 * FLOOD_BOUND);

    const after = await counted.get('/v1/pets');
    expect(after.status).toBe(200);
    expect(after.headers['x-ratelimit-remaining']).toBe('5');
    // Answered from the key cache: no lookup.
    expect(lookups.mock.calls.length).toBe(lookupsBefore + 3 * FLOOD_BOUND);
    expectErrorBody(await noisy.get('/v1/pets'), 429, 'api_key_banned');
  });
}

/** A well-formed key that no one was given, from an address. */
function guess(anonymous: ApiClient, remoteAddress: string): Promise<ApiResponse> {
  return anonymous.request({ url: '/v1/pets', remoteAddress, headers: { authorization: `Bearer ${generateApiKeySecret('test')}` } });
}

function createPet(client: ApiClient, name: string): Promise<ApiResponse> {
  return client.post('/v1/pets', { name, categoryId: 1 });
}

/** Every answer is `success` or a 429 `rate_limited` with Retry-After and the headers, none banned; the indexes refused. */
function expectRefusedNeverBanned(answers: readonly ApiResponse[], success: number): number[] {
  const refused: number[] = [];
  answers.forEach((answer, i) => {
    if (answer.status === success) return;
    expectErrorBody(answer, 429, 'rate_limited');
    expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(String(answer.headers['x-ratelimit-remaining'])).toMatch(/^\d+$/);
    refused.push(i);
  });
  return refused;
}

function longestRetryAfter(answers: readonly ApiResponse[]): number {
  return Math.max(0, ...answers.map((answer) => Number(answer.headers['retry-after'] ?? 0)));
}

/** Every pet stored, counted by paging the list with the app's own unlimited key. */
async function countPets(testApp: TestApp): Promise<number> {
  let count = 0;
  let next: string | undefined = '/v1/pets?limit=100';
  while (next) {
    const page: ApiResponse<unknown[]> = await testApp.client.get<unknown[]>(next);
    expect(page.status).toBe(200);
    count += page.body.length;
    next = nextLink(page.headers);
  }
  return count;
}
