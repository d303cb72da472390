import { ApiClient, ApiResponse, expectErrorBody } from './support/api-client';
import { describeOnStore } from './support/describe-store';
import { createTestApp, TestApp } from './support/test-app';

interface Pet {
  id: number;
}

const remaining = (response: ApiResponse) => Number(response.headers['x-ratelimit-remaining']);
const etag = (response: ApiResponse) => String(response.headers.etag);

/** A 304 as the client relies on it: no body, the tag, and the rate-limit headers. */
function expectNotModified(response: ApiResponse, tag: string): void {
  expect({ status: response.status, text: response.text, etag: response.headers.etag }).toEqual({ status: 304, text: '', etag: tag });
  expect(response.headers).not.toHaveProperty('content-type');
  for (const header of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'ratelimit-policy', 'ratelimit']) {
    expect(response.headers).toHaveProperty(header);
  }
  expect(response.headers).not.toHaveProperty('retry-after');
}

describeOnStore('conditional GET', () => {
  let testApp: TestApp;
  /** A client of its own per case: each starts with a full quota of 100 a minute. */
  const newClient = async (scopes?: string[]): Promise<ApiClient> => {
    const { secret } = await testApp.createKey({ plan: 'free', ...(scopes ? { scopes } : {}) });
    return testApp.anonymous.withHeaders({ authorization: `Bearer ${secret}` });
  };

  beforeAll(async () => {
    testApp = await createTestApp({ env: { RATE_LIMIT_PLANS: '{"free":{"perMinute":100,"perDay":1000}}' } });
  });
  afterAll(() => testApp?.close());

  describe('getPet', () => {
    let pet: Pet;

    beforeAll(async () => {
      pet = (await testApp.client.post<Pet>('/v1/pets', { name: 'Rex', categoryId: 3 })).body;
    });

    it('answers 200 with an ETag, and If-None-Match with it 304 with the tag, the deprecation headers and no body', async () => {
      const client = await newClient();
      const first = await client.get<Pet>(`/v1/pets/${pet.id}`);
      expect(first.status).toBe(200);
      expect(first.body).toEqual(pet);
      expect(etag(first)).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
      expect((await client.get(`/v1/pets/${pet.id}`)).headers.etag).toBe(etag(first));

      const notModified = await client.get(`/v1/pets/${pet.id}`, { 'if-none-match': etag(first) });
      expectNotModified(notModified, etag(first));
      expect(notModified.headers.deprecation).toBe(first.headers.deprecation);
      expect(notModified.headers.sunset).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
      expect(notModified.headers.link).toMatch(/^<http:\/\/[^>]+\/v1\/pets>; rel="successor-version"$/);
    });

    it('spends no plan quota on a 304, only one of its answers: remaining is the same before and after it, and the next request takes one', async () => {
      const client = await newClient();
      const before = await client.get(`/v1/pets/${pet.id}`);
      expect(remaining(before)).toBe(99);
      for (let i = 1; i <= 5; i++) {
        const notModified = await client.get(`/v1/pets/${pet.id}`, { 'if-none-match': etag(before) });
        expect(notModified.status).toBe(304);
        expect(remaining(notModified)).toBe(99);
        expect(notModified.headers['x-ratelimit-reset']).toBe(before.headers['x-ratelimit-reset']);
        expect(notModified.headers.ratelimit).toBe(String(before.headers.ratelimit).replace('"answers";r=999', `"answers";r=${999 - i}`));
      }
      expect(remaining(await client.get(`/v1/pets/${pet.id}`))).toBe(98);
    });

    it('answers HEAD as GET: the same ETag, and If-None-Match with it 304 without spending quota', async () => {
      const client = await newClient();
      const tag = etag(await client.get(`/v1/pets/${pet.id}`));
      const head = await client.request({ method: 'HEAD', url: `/v1/pets/${pet.id}` });
      expect({ status: head.status, text: head.text, etag: head.headers.etag }).toEqual({ status: 200, text: '', etag: tag });
      expect(remaining(head)).toBe(98);
      const notModified = await client.request({ method: 'HEAD', url: `/v1/pets/${pet.id}`, headers: { 'if-none-match': tag } });
      expectNotModified(notModified, tag);
      expect(remaining(notModified)).toBe(98);
      expect(remaining(await client.get(`/v1/pets/${pet.id}`))).toBe(97);
    });

    it('compares weakly and takes a list of tags or *, per RFC 9110; only the 304 for * spends a request', async () => {
      const client = await newClient();
      const tag = etag(await client.get(`/v1/pets/${pet.id}`));
      for (const ifNoneMatch of [`W/${tag}`, `"other", ${tag}`, `W/"other",W/${tag}`, '*']) {
        expectNotModified(await client.get(`/v1/pets/${pet.id}`, { 'if-none-match': ifNoneMatch }), tag);
      }
      expect(remaining(await client.get(`/v1/pets/${pet.id}`))).toBe(97);
    });

    it('answers a tag that is not current with the 200, which spends one request like any', async () => {
      const client = await newClient();
      const stale = await client.get<Pet>(`/v1/pets/${pet.id}`, { 'if-none-match': '"not-the-tag", W/"nor-this"' });
      expect(stale.status).toBe(200);
      expect(stale.body).toEqual(pet);
      expect(etag(stale)).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
      expect(remaining(stale)).toBe(99);
      expect(remaining(await client.get(`/v1/pets/${pet.id}`, { 'if-none-match': 'garbage' }))).toBe(98);
    });

    it('gives another pet another tag', async () => {
      const other = (await testApp.client.post<Pet>('/v1/pets', { name: 'Tom', categoryId: 3 })).body;
      const client = await newClient();
      const tag = etag(await client.get(`/v1/pets/${pet.id}`));
      const response = await client.get(`/v1/pets/${other.id}`, { 'if-none-match': tag });
      expect(response.status).toBe(200);
      expect(etag(response)).not.toBe(tag);
    });

    it('counts the errors of a conditional request like any answer: 404, 400, 403 and 401', async () => {
      const client = await newClient();
      const ifNoneMatch = { 'if-none-match': '*' };
      const notFound = await client.get('/v1/pets/9007199254740991', ifNoneMatch);
      expectErrorBody(notFound, 404, 'not_found');
      expect(notFound.headers).not.toHaveProperty('etag');
      expect(remaining(notFound)).toBe(99);
      expectErrorBody(await client.get('/v1/pets/abc', ifNoneMatch), 400, 'validation_failed');
      expect(remaining(await client.get('/v1/pets?limit=0', ifNoneMatch))).toBe(97);

      const writeOnly = await newClient(['pets:write']);
      const forbidden = await writeOnly.get(`/v1/pets/${pet.id}`, ifNoneMatch);
      expectErrorBody(forbidden, 403, 'insufficient_scope');
      expect(remaining(forbidden)).toBe(99);

      const anonymous = { url: `/v1/pets/${pet.id}`, headers: ifNoneMatch, remoteAddress: '198.51.100.27' };
      const unauthorized = await testApp.anonymous.request(anonymous);
      expectErrorBody(unauthorized, 401, 'unauthorized');
      expect(remaining(unauthorized)).toBe(99);
      expect(remaining(await testApp.anonymous.request(anonymous))).toBe(98);
    });
  });

  describe('listPets', () => {
    let client: ApiClient;
    const tagsOf = async (query: string) => {
      const pages: ApiResponse<Pet[]>[] = [];
      for (let url: string | undefined = `/v1/pets?${query}`; url; ) {
        const page: ApiResponse<Pet[]> = await client.get<Pet[]>(url);
        expect(page.status).toBe(200);
        pages.push(page);
        const next = /<([^>]+)>; rel="next"/.exec(String(page.headers.link ?? ''));
        url = next ? new URL(next[1]).pathname + new URL(next[1]).search : undefined;
      }
      return pages;
    };

    beforeAll(async () => {
      client = await newClient();
      for (const name of ['A', 'B', 'C']) await client.post('/v1/pets', { name, categoryId: 9, status: 'sold' });
    });

    it('answers a page with an ETag, and If-None-Match with it 304 without spending quota', async () => {
      const page = await client.get<Pet[]>('/v1/pets?status=sold&limit=2');
      expect(page.status).toBe(200);
      expect(page.body).toHaveLength(2);
      const notModified = await client.get('/v1/pets?status=sold&limit=2', { 'if-none-match': etag(page) });
      expectNotModified(notModified, etag(page));
      // The page's next link comes again, as the copy the client holds has it.
      expect(notModified.headers.link).toBe(page.headers.link);
      expect(remaining(notModified)).toBe(remaining(page));
      expect(remaining(await client.get('/v1/pets?status=sold&limit=2'))).toBe(remaining(page) - 1);
    });

    it("changes the last page's tag when a pet is added, and not an earlier full page's", async () => {
      const before = await tagsOf('status=sold&limit=2');
      expect(before.map((page) => page.body.length)).toEqual([2, 1]);
      await client.post('/v1/pets', { name: 'D', categoryId: 9, status: 'sold' });
      const [first, last] = before;
      expectNotModified(await client.get('/v1/pets?status=sold&limit=2', { 'if-none-match': etag(first) }), etag(first));
      const lastUrl = new URL(/<([^>]+)>/.exec(String(first.headers.link))?.[1] as string);
      const changed = await client.get<Pet[]>(lastUrl.pathname + lastUrl.search, { 'if-none-match': etag(last) });
      expect(changed.status).toBe(200);
      expect(changed.body).toHaveLength(2);
      expect(etag(changed)).not.toBe(etag(last));
    });

    it("changes a page's tag when only its Link does: a full last page gains a next link", async () => {
      const [full] = await tagsOf('status=sold&limit=4');
      expect(full.body).toHaveLength(4);
      expect(full.headers).not.toHaveProperty('link');
      await client.post('/v1/pets', { name: 'E', categoryId: 9, status: 'sold' });
      const grown = await client.get<Pet[]>('/v1/pets?status=sold&limit=4', { 'if-none-match': etag(full) });
      expect(grown.status).toBe(200);
      expect(grown.body).toEqual(full.body);
      expect(grown.headers.link).toMatch(/rel="next"$/);
      expect(etag(grown)).not.toBe(etag(full));
    });
  });

  describe('near the limit', () => {
    let limited: TestApp;

    beforeAll(async () => {
      limited = await createTestApp({
        database: testApp.database,
        env: { RATE_LIMIT_PLANS: '{"free":{"perMinute":2,"perDay":1000}}', BAN_AFTER_REJECTIONS: '2', BAN_SECONDS: '600' },
      });
    });
    afterAll(() => limited?.close());

    it("answers a rate-limited caller's conditional request 429, counted as a rejection like any; a ban refuses it too", async () => {
      const { secret } = await limited.createKey({ plan: 'free' });
      const client = limited.anonymous.withHeaders({ authorization: `Bearer ${secret}` });
      const first = await client.get('/v1/pets?limit=1');
      const notModified = await client.get('/v1/pets?limit=1', { 'if-none-match': etag(first) });
      expectNotModified(notModified, etag(first));
      expect(remaining(notModified)).toBe(1);
      await client.get('/v1/pets?limit=1');
      // A refusal opens an episode whose first second is a burst, tallied toward no ban; past it, refusals count.
      expectErrorBody(await client.get('/v1/pets?limit=1'), 429, 'rate_limited');
      await new Promise((resolve) => setTimeout(resolve, 1_000));

      const refused = await client.get('/v1/pets?limit=1', { 'if-none-match': etag(first) });
      expectErrorBody(refused, 429, 'rate_limited');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(refused.headers).not.toHaveProperty('etag');

      // The refused conditional counted as a rejection like any: two more go over the threshold of two.
      expectErrorBody(await client.get('/v1/pets?limit=1'), 429, 'rate_limited');
      expectErrorBody(await client.get('/v1/pets?limit=1'), 429, 'api_key_banned');
      const banned = await client.get('/v1/pets?limit=1', { 'if-none-match': etag(first) });
      expectErrorBody(banned, 429, 'api_key_banned');
      expect(banned.headers['retry-after']).toBe('600');
      expect(remaining(banned)).toBe(0);
    });
  });
});
