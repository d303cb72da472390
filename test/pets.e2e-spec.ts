import { DataSource } from 'typeorm';
import { ApiClient, ApiResponse, collectPages, expectErrorBody, nextLink } from './support/api-client';
import { describeOnStore } from './support/describe-store';
import { createTestApp, TestApp } from './support/test-app';

interface PetBody {
  id: number;
  name: string;
  categoryId: number;
  status: string;
}

describeOnStore('pets API', () => {
  let testApp: TestApp;
  let api: ApiClient;

  beforeAll(async () => {
    testApp = await createTestApp();
    api = testApp.client;
  });
  afterAll(() => testApp?.close());

  const count = async (): Promise<number> => (await walk('/v1/pets?limit=100')).length;

  const walk = (first: string) => collectPages<PetBody>(api, first);

  describe('POST /v1/pets', () => {
    it('stores a pet, assigns an id and defaults status to available', async () => {
      const response = await api.post<PetBody>('/v1/pets', { name: 'Rex', categoryId: 3 });
      expect(response.status).toBe(201);
      expect(response.body).toEqual({ id: expect.any(Number), name: 'Rex', categoryId: 3, status: 'available' });
      expect(Number.isSafeInteger(response.body.id) && response.body.id >= 1).toBe(true);
      const fetched = await api.get<PetBody>(`/v1/pets/${response.body.id}`);
      expect(fetched.body).toEqual(response.body);
    });

    it('keeps the given status and stores the name exactly as sent', async () => {
      const name = '  Ünïcødé 🐈 cat\u00a0';
      const response = await api.post<PetBody>('/v1/pets', { name, categoryId: 9007199254740991, status: 'sold' });
      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({ name, categoryId: 9007199254740991, status: 'sold' });
      expect((await api.get<PetBody>(`/v1/pets/${response.body.id}`)).body).toEqual(response.body);
    });

    it('accepts a name of 255 characters counted as code points', async () => {
      const name = '🐕'.repeat(255);
      const response = await api.post<PetBody>('/v1/pets', { name, categoryId: 1 });
      expect(response.status).toBe(201);
      expect((await api.get<PetBody>(`/v1/pets/${response.body.id}`)).body.name).toBe(name);
    });

    const invalidBodies: Array<[string, unknown, RegExp]> = [
      ['name missing', { categoryId: 1 }, /name/],
      ['categoryId missing', { name: 'Rex' }, /categoryId/],
      ['empty name', { name: '', categoryId: 1 }, /name/],
      ['white-space name', { name: ' \t\n ', categoryId: 1 }, /name/],
      ['name of 256 characters', { name: 'a'.repeat(256), categoryId: 1 }, /name/],
      ['name a number', { name: 5, categoryId: 1 }, /name/],
      ['name null', { name: null, categoryId: 1 }, /name/],
      ['categoryId a numeric string', { name: 'Rex', categoryId: '5' }, /categoryId/],
      ['categoryId a fraction', { name: 'Rex', categoryId: 1.5 }, /categoryId/],
      ['categoryId zero', { name: 'Rex', categoryId: 0 }, /categoryId/],
      ['categoryId negative', { name: 'Rex', categoryId: -4 }, /categoryId/],
      ['categoryId beyond 2^53 - 1', { name: 'Rex', categoryId: 9007199254740992 }, /categoryId/],
      ['categoryId null', { name: 'Rex', categoryId: null }, /categoryId/],
      ['categoryId a boolean', { name: 'Rex', categoryId: true }, /categoryId/],
      ['status unknown', { name: 'Rex', categoryId: 1, status: 'SOLD' }, /status/],
      ['status null', { name: 'Rex', categoryId: 1, status: null }, /status/],
      ['id sent by the client', { id: 7, name: 'Rex', categoryId: 1 }, /id/],
      ['unknown field', { name: 'Rex', categoryId: 1, colour: 'red' }, /colour/],
    ];

    it.each(invalidBodies)('answers 400 naming the field for %s, storing nothing', async (_case, body, field) => {
      const before = await count();
      const response = await api.post('/v1/pets', body);
      expectErrorBody(response, 400, 'validation_failed');
      expect((response.body as { message: string }).message).toMatch(field);
      expect(await count()).toBe(before);
    });

    it('names every problem of a body in one message, unknown fields first', async () => {
      const response = await api.post('/v1/pets', { colour: 'red', name: 5 });
      expectErrorBody(response, 400, 'validation_failed');
      expect((response.body as { message: string }).message).toBe(
        'property colour should not exist; name must be a string; categoryId is required',
      );
    });

    const badPayloads: Array<[string, string | undefined, Record<string, string>, number, string]> = [
      ['a JSON array', '[{"name":"Rex","categoryId":1}]', { 'content-type': 'application/json' }, 400, 'validation_failed'],
      ['JSON null', 'null', { 'content-type': 'application/json' }, 400, 'validation_failed'],
      ['a JSON string', '"Rex"', { 'content-type': 'application/json' }, 400, 'validation_failed'],
      ['malformed JSON', '{"name":', { 'content-type': 'application/json' }, 400, 'validation_failed'],
      ['an empty JSON body', '', { 'content-type': 'application/json' }, 400, 'validation_failed'],
      ['no body at all', undefined, {}, 400, 'validation_failed'],
      ['a small body of deeply nested arrays', `{"name":"Rex","categoryId":1,"pad":${'['.repeat(7_000)}${']'.repeat(7_000)}}`, { 'content-type': 'application/json' }, 400, 'validation_failed'],
      ['a 9007199254740993 that JSON.parse rounds', '{"name":"Rex","categoryId":9007199254740993}', { 'content-type': 'application/json' }, 400, 'validation_failed'],
      ['text/plain', '{"name":"Rex","categoryId":1}', { 'content-type': 'text/plain' }, 415, 'unsupported_media_type'],
      ['a form body', 'name=Rex&categoryId=1', { 'content-type': 'application/x-www-form-urlencoded' }, 415, 'unsupported_media_type'],
      ['a body over 16 KiB', JSON.stringify({ name: 'R', categoryId: 1, pad: 'x'.repeat(17_000) }), { 'content-type': 'application/json' }, 413, 'payload_too_large'],
    ];

    it.each(badPayloads)('answers %s with the Error body, storing nothing', async (_case, payload, headers, status, code) => {
      const before = await count();
      const response = await api.request({ method: 'POST', url: '/v1/pets', payload, headers });
      expectErrorBody(response, status, code);
      expect(await count()).toBe(before);
    });

    it.each([
      ['a JSON array', '[{"name":"Rex","categoryId":1}]'],
      ['JSON null', 'null'],
      ['a JSON number', '5'],
      ['absent', undefined],
    ])('says so when the body is %s rather than a JSON object', async (_case, payload) => {
      const headers: Record<string, string> = payload === undefined ? {} : { 'content-type': 'application/json' };
      const response = await api.request({ method: 'POST', url: '/v1/pets', payload, headers });
      expectErrorBody(response, 400, 'validation_failed');
      expect(response.body).toEqual({ code: 'validation_failed', message: 'Request body must be a JSON object', status: 400 });
    });
  });

  describe('GET /v1/pets', () => {
    let fixture: TestApp;
    let client: ApiClient;
    const created: PetBody[] = [];

    beforeAll(async () => {
      fixture = await createTestApp();
      client = fixture.client;
      const statuses = ['available', 'pending', 'sold'];
      for (let i = 0; i < 45; i++) {
        const response = await client.post<PetBody>('/v1/pets', { name: `pet ${i}`, categoryId: 100 + i, status: statuses[i % 3] });
        created.push(response.body);
      }
    });
    afterAll(() => fixture?.close());

    it('returns a bare array of 20 pets ordered by id, with a next link', async () => {
      const response = await client.get<PetBody[]>('/v1/pets');
      expect(response.status).toBe(200);
      expect(response.body).toEqual(created.slice(0, 20));
      expect(response.headers.link).toMatch(/^<http:\/\/localhost(:\d+)?\/v1\/pets\?limit=20&cursor=[A-Za-z0-9_-]+>; rel="next"$/);
    });

    it('walks every page exactly once, keeping limit and status in the links', async () => {
      const all = [];
      let url: string | undefined = '/v1/pets?limit=7&status=sold';
      while (url) {
        const page: ApiResponse<PetBody[]> = await client.get<PetBody[]>(url);
        expect(page.status).toBe(200);
        all.push(...page.body);
        url = nextLink(page.headers);
        if (url) expect(url).toMatch(/^\/v1\/pets\?limit=7&status=sold&cursor=/);
      }
      expect(all).toEqual(created.filter((pet) => pet.status === 'sold'));
    });

    it('ends without a next link when the last page is full', async () => {
      const response = await client.get<PetBody[]>('/v1/pets?limit=15&status=pending');
      expect(response.body).toHaveLength(15);
      expect(response.headers.link).toBeUndefined();
    });

    it.each(['0', '101', 'abc', '1.5', '-1', '', '1e1', ' 5'])('answers 400 for limit=%p', async (limit) => {
      const response = await client.get(`/v1/pets?limit=${encodeURIComponent(limit)}`);
      expectErrorBody(response, 400, 'validation_failed');
      expect((response.body as { message: string }).message).toMatch(/limit/);
    });

    it.each(['SOLD', 'lost', ''])('answers 400 for status=%p', async (status) => {
      const response = await client.get(`/v1/pets?status=${status}`);
      expectErrorBody(response, 400, 'validation_failed');
      expect((response.body as { message: string }).message).toMatch(/status/);
    });

    it.each(['garbage', 'cDEuMA', 'cDEuLTU', Buffer.from('p1.9007199254740993').toString('base64url'), '%%%'])(
      'answers 400 for a malformed cursor %p',
      async (cursor) => {
        const response = await client.get(`/v1/pets?cursor=${encodeURIComponent(cursor)}`);
        expectErrorBody(response, 400, 'validation_failed');
        expect((response.body as { message: string }).message).toMatch(/cursor/);
      },
    );

    it('answers 400 for a repeated or unknown query parameter', async () => {
      expectErrorBody(await client.get('/v1/pets?limit=5&limit=6'), 400, 'validation_failed');
      expectErrorBody(await client.get('/v1/pets?colour=red'), 400, 'validation_failed');
    });
  });

  describe('GET /v1/pets/{petId} (deprecated)', () => {
    function expectDeprecationHeaders(response: ApiResponse): void {
      expect(response.headers.deprecation).toBe(`@${Date.UTC(2026, 10, 21) / 1000}`);
      expect(response.headers.sunset).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
      expect(response.headers.link).toMatch(/^<http:\/\/localhost(:\d+)?\/v1\/pets>; rel="successor-version"$/);
    }

    it('returns the pet with Deprecation, Sunset and successor Link headers', async () => {
      const created = await api.post<PetBody>('/v1/pets', { name: 'Old', categoryId: 2, status: 'pending' });
      const response = await api.get<PetBody>(`/v1/pets/${created.body.id}`);
      expect(response.status).toBe(200);
      expect(response.body).toEqual(created.body);
      expectDeprecationHeaders(response);
    });

    it('answers 404 for an unknown id, with the headers', async () => {
      const response = await api.get('/v1/pets/9007199254740991');
      expectErrorBody(response, 404, 'not_found');
      expectDeprecationHeaders(response);
    });

    // '1e0', '0x1' and '%201' are numbers to JavaScript's Number(), not decimal ids.
    it.each(['abc', '0', '-1', '1.5', '9007199254740992', '99999999999999999999', '1e0', '0x1', '%201', '+1'])(
      'answers 400 for petId %p, with the headers',
      async (id) => {
        const response = await api.get(`/v1/pets/${id}`);
        expectErrorBody(response, 400, 'validation_failed');
        expect((response.body as { message: string }).message).toMatch(/petId/);
        expectDeprecationHeaders(response);
      },
    );

    it('answers 401 without a key, with the headers', async () => {
      const response = await api.get('/v1/pets/1', { authorization: 'Basic dXNlcjpwYXNz' });
      expectErrorBody(response, 401, 'unauthorized');
      expectDeprecationHeaders(response);
    });

    it('leaves the headers off the other operations', async () => {
      const response = await api.get('/v1/pets');
      expect(response.headers.deprecation).toBeUndefined();
      expect(response.headers.sunset).toBeUndefined();
    });
  });

  describe('unknown addresses', () => {
    it.each([
      ['GET', '/v1/store/carts'],
      ['GET', '/store/orders'],
      ['GET', '/pets'],
      ['GET', '/v2/pets'],
      ['DELETE', '/v1/pets'],
      ['POST', '/v1/pets/1'],
      ['PUT', '/v1/pets/1'],
      ['GET', '/'],
    ] as const)('%s %s answers 404 with the Error body', async (method, url) => {
      expectErrorBody(await api.request({ method, url }), 404, 'not_found');
    });
  });

  describe('concurrency', () => {
    it('stores 500 concurrent creates with 500 distinct ids, and a walk returns each once', async () => {
      // The burst is about ids, not waits or places in flight: on MySQL the 500 queue for ten connections longer than
      // the bound would let them, and all 500 are in flight at once.
      const fixture = await createTestApp({ env: { DATABASE_ACQUIRE_TIMEOUT_MS: '60000', RATE_LIMIT_PLANS: '{"enterprise":{"concurrency":500}}' } });
      try {
        const responses = await Promise.all(
          Array.from({ length: 500 }, (_, i) => fixture.client.post<PetBody>('/v1/pets', { name: `burst ${i}`, categoryId: i + 1 })),
        );
        expect(responses.map((r) => r.status)).toEqual(Array(500).fill(201));
        const ids = responses.map((r) => r.body.id);
        expect(new Set(ids).size).toBe(500);
        const walked: PetBody[] = [];
        for (let url: string | undefined = '/v1/pets?limit=100'; url; ) {
          const page: ApiResponse<PetBody[]> = await fixture.client.get<PetBody[]>(url);
          walked.push(...page.body);
          url = nextLink(page.headers);
        }
        expect(walked.map((p) => p.id)).toEqual([...ids].sort((a, b) => a - b));
      } finally {
        await fixture.close();
      }
    });
  });

  describe('unexpected failures', () => {
    it('answers 500 internal_error without leaking SQL, stack or names', async () => {
      const fixture = await createTestApp();
      try {
        await fixture.app.get(DataSource).query('DROP TABLE pets');
        const response = await fixture.client.get('/v1/pets');
        expectErrorBody(response, 500, 'internal_error');
        expect(response.text).not.toMatch(/SELECT|pets|no such table|doesn't exist|QueryFailed|TypeOrm|\.ts:|\bat \w/);
      } finally {
        await fixture.close();
      }
    });
  });
});
