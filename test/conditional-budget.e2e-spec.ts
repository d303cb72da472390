import { Clock } from '../src/config/clock';
import { PetRepository } from '../src/pets/domain/pet.repository';
import { ApiClient, ApiResponse, expectErrorBody } from './support/api-client';
import { describeOnStore } from './support/describe-store';
import { FakeClock } from './support/fake-clock';
import { createTestApp, TestApp } from './support/test-app';

const PAGE = '/v1/pets?limit=5';
const etag = (response: ApiResponse) => String(response.headers.etag);

describeOnStore('every answer costs some budget: conditional requests', () => {
  let testApp: TestApp;
  const clock = new FakeClock(Date.UTC(2030, 0, 1, 12, 0, 0));
  /** The page's tag, read by a key of another account: the limited keys below send nothing but If-None-Match. */
  let tag: string;

  const keyClient = async (plan: 'free' | 'pro'): Promise<ApiClient> => {
    const { secret } = await testApp.createKey({ plan });
    return testApp.anonymous.withHeaders({ authorization: `Bearer ${secret}` });
  };

  beforeAll(async () => {
    testApp = await createTestApp({
      env: { RATE_LIMIT_PLANS: '{"free":{"perMinute":5,"perDay":1000}}' },
      overrides: [{ provide: Clock, useValue: clock }],
    });
    await testApp.client.post('/v1/pets', { name: 'Rex', categoryId: 3 });
    tag = etag(await testApp.client.get(PAGE));
  });
  afterAll(() => testApp?.close());

  it('gives a key limited to 5 a minute, sending only If-None-Match for 10 s, at most 50 answers other than 429', async () => {
    const client = await keyClient('free');
    const statuses: number[] = [];
    for (let sent = 0; sent < 200; sent++) {
      statuses.push((await client.get(PAGE, { 'if-none-match': tag })).status);
      clock.advance(50);
    }
    expect(new Set(statuses)).toEqual(new Set([304, 429]));
    expect(statuses.filter((status) => status !== 429)).toHaveLength(50);
    // The first fifty were answered; from the fifty-first, none was.
    expect(statuses.slice(0, 50).every((status) => status === 304)).toBe(true);
    expect(statuses.slice(50).every((status) => status === 429)).toBe(true);
  });

  it('counts the refusals under that limit toward the ban, and names the limit in RateLimit-Policy', async () => {
    const client = await keyClient('free');
    for (let sent = 0; sent < 50; sent++) expect((await client.get(PAGE, { 'if-none-match': tag })).status).toBe(304);
    const refused = await client.get(PAGE, { 'if-none-match': tag });
    expectErrorBody(refused, 429, 'rate_limited');
    expect(refused.headers['ratelimit-policy']).toBe('"minute";q=5;w=60, "day";q=1000;w=86400, "answers";q=50;w=60');
    expect(refused.headers['ratelimit']).toBe('"minute";r=5;t=60, "day";r=1000;t=86400, "answers";r=0;t=60');
    expect(refused.headers['retry-after']).toBe('60');
    // BAN_AFTER_REJECTIONS is 30: past the second of a burst, the thirty-first rejection bans the key.
    clock.advance(1_000);
    for (let rejected = 0; rejected < 30; rejected++) expectErrorBody(await client.get(PAGE, { 'if-none-match': tag }), 429, 'rate_limited');
    expectErrorBody(await client.get(PAGE, { 'if-none-match': tag }), 429, 'api_key_banned');
    expectErrorBody(await client.get(PAGE), 429, 'api_key_banned');
  });

  it('still gives a client polling once a second its 304s, free of its plan quota', async () => {
    const client = await keyClient('pro');
    const first = await client.get(PAGE);
    expect(first.status).toBe(200);
    for (let second = 0; second < 120; second++) {
      clock.advance(1_000);
      const polled = await client.get(PAGE, { 'if-none-match': etag(first) });
      expect(polled.status).toBe(304);
      expect(polled.headers['x-ratelimit-limit']).toBe('300');
      // The plan's minute is spent only by answers other than 304: by the first 200 while its window lasts, then by none.
      expect(Number(polled.headers['x-ratelimit-remaining'])).toBe(second < 59 ? 299 : 300);
    }
  });

  it('refuses a conditional request 429 while its plan has no room, before any query runs', async () => {
    const client = await keyClient('free');
    for (let sent = 0; sent < 5; sent++) expect((await client.get(PAGE)).status).toBe(200);
    const pets = testApp.app.get(PetRepository);
    const findPage = jest.spyOn(pets, 'findPage');
    try {
      const refused = await client.get(PAGE, { 'if-none-match': tag });
      expectErrorBody(refused, 429, 'rate_limited');
      expect(refused.headers['retry-after']).toBe('60');
      expect(findPage).not.toHaveBeenCalled();
    } finally {
      findPage.mockRestore();
    }
  });
});
