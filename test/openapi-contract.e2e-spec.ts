import { readFileSync } from 'node:fs';
import { DataSource } from 'typeorm';
import { Clock } from '../src/config/clock';
import { serializeOpenApiDocument } from '../src/docs/api-docs';
import { IdempotencyKeyInUseError } from '../src/idempotency/domain/idempotency.errors';
import { IdempotencyRecordStore } from '../src/idempotency/domain/idempotency-record.store';
import { PetHolds } from '../src/pets/domain/pet-holds';
import { RequestDrain } from '../src/ops/request-drain';
import { RateLimitDecision, RateLimitStore } from '../src/rate-limit/domain/rate-limit-store';
import { MemoryRateLimitStore } from '../src/rate-limit/infrastructure/memory-rate-limit.store';
import { ApiClient, ApiRequest, ApiResponse, expectErrorBody } from './support/api-client';
import { describeOnStore } from './support/describe-store';
import { FakeClock } from './support/fake-clock';
import { OPENAPI_FILE, OpenApiContract } from './support/openapi-contract';
import { createTestApp, TestApp } from './support/test-app';

interface PetBody {
  id: number;
}

/** One call of each operation, as `client` sends it, with the operation's id. */
async function callEveryOperation(client: ApiClient): Promise<Array<[string, ApiResponse]>> {
  return [
    ['listPets', await client.get('/v1/pets')],
    ['createPet', await client.post('/v1/pets', { name: 'Rex', categoryId: 1 })],
    ['getPet', await client.get('/v1/pets/1')],
    ['updatePet', await client.request({ method: 'PATCH', url: '/v1/pets/1', payload: { name: 'Max' } })],
    ['deletePet', await client.request({ method: 'DELETE', url: '/v1/pets/2' })],
    ['getInventory', await client.get('/v1/store/inventory')],
    ['getRateLimit', await client.get('/v1/rate_limit')],
    ['placeOrder', await client.post('/v1/store/orders', { petId: 1 })],
    ['listOrders', await client.get('/v1/store/orders')],
    ['getOrder', await client.get('/v1/store/orders/1')],
    ['deliverOrder', await client.post('/v1/store/orders/1/deliver')],
    ['cancelOrder', await client.post('/v1/store/orders/1/cancel')],
    ['getUsage', await client.get('/v1/usage')],
  ];
}

describeOnStore('the API document', () => {
  let testApp: TestApp;
  let api: ApiClient;
  const contract = OpenApiContract.fromFile();

  beforeAll(async () => {
    testApp = await createTestApp();
    api = testApp.client;
  });
  afterAll(() => testApp?.close());

  describe('as served', () => {
    it('is GET /docs/openapi.json, without a key, and equals the committed openapi.json', async () => {
      const anonymous = new ApiClient(testApp.app);
      const response = await anonymous.get('/docs/openapi.json');
      expect(response.status).toBe(200);
      expect(String(response.headers['content-type'])).toMatch(/^application\/json/);
      // Regenerate with `npm run openapi` when this fails.
      expect(serializeOpenApiDocument(response.body as never)).toBe(readFileSync(OPENAPI_FILE, 'utf8'));
    });

    it('lists the configured production and staging servers', async () => {
      const custom = await createTestApp({
        database: testApp.database,
        env: { PUBLIC_BASE_URL: 'https://api.example.com/v1', STAGING_BASE_URL: 'https://staging.example.com/v1' },
      });
      try {
        const { body } = await new ApiClient(custom.app).get<{ servers: unknown }>('/docs/openapi.json');
        expect(body.servers).toEqual([
          { url: 'https://api.example.com/v1', description: 'Production' },
          { url: 'https://staging.example.com/v1', description: 'Staging' },
        ]);
      } finally {
        await custom.close();
      }
    });

    it('serves Swagger UI at GET /docs from the service itself', async () => {
      const anonymous = new ApiClient(testApp.app);
      const page = await anonymous.get('/docs');
      expect(page.status).toBe(200);
      expect(String(page.headers['content-type'])).toMatch(/^text\/html/);
      const scripts = [...page.text.matchAll(/<script src="([^"]+)"/g)].map((match) => match[1]);
      expect(scripts).toEqual(['./docs/swagger-ui-bundle.js', './docs/swagger-ui-standalone-preset.js', './docs/swagger-ui-init.js']);
      for (const script of scripts) {
        const asset = await anonymous.get(`/docs/${script.slice('./docs/'.length)}`);
        expect({ script, status: asset.status }).toEqual({ script, status: 200 });
        expect(String(asset.headers['content-type'])).toMatch(/javascript/);
      }
    });
  });

  describe('matches what the service sends', () => {
    let first: PetBody;

    it('createPet 201', async () => {
      const response = await api.post<PetBody>('/v1/pets', { name: 'Rex', categoryId: 3 });
      expect(response.status).toBe(201);
      contract.expectResponse('createPet', response);
      first = response.body;
      await api.post('/v1/pets', { name: 'Tom', categoryId: 4, status: 'sold' });
      await api.post('/v1/pets', { name: 'Kit', categoryId: 4, status: 'pending' });
    });

    it.each([
      ['missing fields', { name: 'Rex' }],
      ['an unknown field', { name: 'Rex', categoryId: 1, id: 7 }],
      ['a name of white space only', { name: ' \t', categoryId: 1 }],
      ['a categoryId beyond 2^53 - 1', '{"name":"Rex","categoryId":9007199254740993}'],
    ])('createPet 400 for %s', async (_case, payload) => {
      const response = await api.post('/v1/pets', payload, { 'content-type': 'application/json' });
      expectErrorBody(response, 400, 'validation_failed');
      contract.expectResponse('createPet', response);
    });

    it('createPet 413 for a body over the limit', async () => {
      const response = await api.post('/v1/pets', { name: 'Rex', categoryId: 1, pad: 'x'.repeat(17_000) });
      expectErrorBody(response, 413, 'payload_too_large');
      contract.expectResponse('createPet', response);
    });

    it('createPet 415 for a body that is not JSON', async () => {
      const response = await api.post('/v1/pets', 'name=Rex', { 'content-type': 'application/x-www-form-urlencoded' });
      expectErrorBody(response, 415, 'unsupported_media_type');
      contract.expectResponse('createPet', response);
    });

    it('createPet 201 replayed, 422 and 409 with an Idempotency-Key', async () => {
      const headers = { 'idempotency-key': 'contract-1' };
      expect((await api.post('/v1/pets', { name: 'Rex', categoryId: 3 }, headers)).status).toBe(201);
      const replayed = await api.post('/v1/pets', { name: 'Rex', categoryId: 3 }, headers);
      expect(replayed.headers['idempotent-replayed']).toBe('true');
      contract.expectResponse('createPet', replayed);
      const reused = await api.post('/v1/pets', { name: 'Tom', categoryId: 3 }, headers);
      expectErrorBody(reused, 422, 'idempotency_key_reused');
      contract.expectResponse('createPet', reused);
      // What a retry answers when it waited too long on the claim of a request still in progress.
      jest.spyOn(testApp.app.get(IdempotencyRecordStore), 'claim').mockRejectedValueOnce(new IdempotencyKeyInUseError());
      const inUse = await api.post('/v1/pets', { name: 'Kit', categoryId: 3 }, { 'idempotency-key': 'contract-2' });
      expectErrorBody(inUse, 409, 'idempotency_key_in_use');
      contract.expectResponse('createPet', inUse);
    });

    it('updatePet 200, 400, 404, 409, 412, 413 and 415', async () => {
      const url = `/v1/pets/${first.id}`;
      const patch = (payload: unknown, headers: Record<string, string> = {}) => api.request({ method: 'PATCH', url, payload, headers });
      const changed = await patch({ name: 'Max' });
      expect(changed.status).toBe(200);
      contract.expectResponse('updatePet', changed);
      const responses: Array<[number, string, ApiResponse]> = [
        [400, 'validation_failed', await patch({ name: null })],
        [400, 'validation_failed', await api.request({ method: 'PATCH', url: '/v1/pets/abc', payload: { name: 'Max' } })],
        [404, 'not_found', await api.request({ method: 'PATCH', url: '/v1/pets/9007199254740991', payload: { name: 'Max' } })],
        [412, 'precondition_failed', await patch({ name: 'Tom' }, { 'if-match': '"AAAAAAAAAAAAAAAAAAAAAA"' })],
        [413, 'payload_too_large', await patch({ name: 'x'.repeat(17_000) })],
        [415, 'unsupported_media_type', await patch('name=Max', { 'content-type': 'application/x-www-form-urlencoded' })],
      ];
      const sold = await api.post<PetBody>('/v1/pets', { name: 'Sold', categoryId: 1, status: 'sold' });
      responses.push([409, 'invalid_transition', await api.request({ method: 'PATCH', url: `/v1/pets/${sold.body.id}`, payload: { status: 'available' } })]);
      for (const [status, code, response] of responses) {
        expectErrorBody(response, status, code);
        contract.expectResponse('updatePet', response);
      }
    });

    it('deletePet 204, 400, 404, 409 and 412; getInventory 200', async () => {
      const pet = await api.post<PetBody>('/v1/pets', { name: 'Gone', categoryId: 1 });
      const url = `/v1/pets/${pet.body.id}`;
      jest.spyOn(testApp.app.get(PetHolds), 'isHeld').mockResolvedValueOnce(true);
      const responses: Array<[number, string, ApiResponse]> = [
        [409, 'pet_reserved', await api.request({ method: 'DELETE', url })],
        [412, 'precondition_failed', await api.request({ method: 'DELETE', url, headers: { 'if-match': '"AAAAAAAAAAAAAAAAAAAAAA"' } })],
        [400, 'validation_failed', await api.request({ method: 'DELETE', url: '/v1/pets/0' })],
      ];
      for (const [status, code, response] of responses) {
        expectErrorBody(response, status, code);
        contract.expectResponse('deletePet', response);
      }
      const removed = await api.request({ method: 'DELETE', url });
      expect(removed.status).toBe(204);
      contract.expectResponse('deletePet', removed);
      const missing = await api.request({ method: 'DELETE', url });
      expectErrorBody(missing, 404, 'not_found');
      contract.expectResponse('deletePet', missing);
      const inventory = await api.get('/v1/store/inventory');
      expect(inventory.status).toBe(200);
      contract.expectResponse('getInventory', inventory);
    });

    it('listPets 200 with a next link, then without', async () => {
      const page = await api.get('/v1/pets?limit=2');
      expect(page.status).toBe(200);
      expect(page.headers.link).toMatch(/rel="next"/);
      contract.expectResponse('listPets', page);
      const last = await api.get('/v1/pets?limit=100&status=sold');
      expect(last.status).toBe(200);
      expect(last.headers.link).toBeUndefined();
      contract.expectResponse('listPets', last);
    });

    it.each(['limit=0', 'limit=abc', 'status=SOLD', 'cursor=%25%25'])('listPets 400 for %s', async (query) => {
      const response = await api.get(`/v1/pets?${query}`);
      expectErrorBody(response, 400, 'validation_failed');
      contract.expectResponse('listPets', response);
    });

    it('getPet 200, 400 and 404, each with the deprecation headers', async () => {
      const responses: Array<[number, ApiResponse]> = [
        [200, await api.get(`/v1/pets/${first.id}`)],
        [400, await api.get('/v1/pets/abc')],
        [404, await api.get('/v1/pets/9007199254740991')],
      ];
      for (const [status, response] of responses) {
        expect(response.status).toBe(status);
        contract.expectResponse('getPet', response);
      }
    });

    it('listPets and getPet 304 for an If-None-Match that is still current', async () => {
      for (const [operationId, url] of [
        ['listPets', '/v1/pets?limit=2'],
        ['getPet', `/v1/pets/${first.id}`],
      ]) {
        const current = await api.get(url);
        contract.expectResponse(operationId, current);
        const notModified = await api.get(url, { 'if-none-match': String(current.headers.etag) });
        expect(notModified.status).toBe(304);
        contract.expectResponse(operationId, notModified);
      }
    });

    describe('orders', () => {
      const petOf = async (status = 'available'): Promise<number> => (await api.post<PetBody>('/v1/pets', { name: 'Rex', categoryId: 1, status })).body.id;
      const orderOf = async (): Promise<PetBody> => (await api.post<PetBody>('/v1/store/orders', { petId: await petOf() })).body;

      it('placeOrder 201, replayed, 400, 404, 409, 413, 415 and 422', async () => {
        const petId = await petOf();
        const placed = await api.post('/v1/store/orders', { petId }, { 'idempotency-key': 'contract-order' });
        expect(placed.status).toBe(201);
        contract.expectResponse('placeOrder', placed);
        const replayed = await api.post('/v1/store/orders', { petId }, { 'idempotency-key': 'contract-order' });
        expect(replayed.headers['idempotent-replayed']).toBe('true');
        contract.expectResponse('placeOrder', replayed);
        const responses: Array<[number, string, ApiResponse]> = [
          [400, 'validation_failed', await api.post('/v1/store/orders', { petId: '1' })],
          [404, 'not_found', await api.post('/v1/store/orders', { petId: 9007199254740991 })],
          [409, 'pet_not_available', await api.post('/v1/store/orders', { petId })],
          [413, 'payload_too_large', await api.post('/v1/store/orders', { petId, pad: 'x'.repeat(17_000) })],
          [415, 'unsupported_media_type', await api.post('/v1/store/orders', 'petId=1', { 'content-type': 'application/x-www-form-urlencoded' })],
          [422, 'idempotency_key_reused', await api.post('/v1/store/orders', { petId: petId + 1 }, { 'idempotency-key': 'contract-order' })],
        ];
        for (const [status, code, response] of responses) {
          expectErrorBody(response, status, code);
          contract.expectResponse('placeOrder', response);
        }
      });

      it('listOrders 200 with a next link, then without, 304 and 400', async () => {
        await orderOf();
        await orderOf();
        const page = await api.get('/v1/store/orders?limit=1');
        expect(page.headers.link).toMatch(/rel="next"/);
        contract.expectResponse('listOrders', page);
        const last = await api.get('/v1/store/orders?limit=100');
        expect(last.headers.link).toBeUndefined();
        contract.expectResponse('listOrders', last);
        const notModified = await api.get('/v1/store/orders?limit=100', { 'if-none-match': String(last.headers.etag) });
        expect(notModified.status).toBe(304);
        contract.expectResponse('listOrders', notModified);
        const invalid = await api.get('/v1/store/orders?status=pending');
        expectErrorBody(invalid, 400, 'validation_failed');
        contract.expectResponse('listOrders', invalid);
      });

      it('getOrder 200, 304, 400 and 404', async () => {
        const order = await orderOf();
        const current = await api.get(`/v1/store/orders/${order.id}`);
        expect(current.status).toBe(200);
        const responses: ApiResponse[] = [
          current,
          await api.get(`/v1/store/orders/${order.id}`, { 'if-none-match': String(current.headers.etag) }),
          await api.get('/v1/store/orders/abc'),
          await api.get('/v1/store/orders/9007199254740991'),
        ];
        expect(responses.map(({ status }) => status)).toEqual([200, 304, 400, 404]);
        for (const response of responses) contract.expectResponse('getOrder', response);
      });

      it.each([
        ['deliverOrder', 'deliver', 'cancel'],
        ['cancelOrder', 'cancel', 'deliver'],
      ])('%s 200, 400, 404 and 409', async (operationId, action, other) => {
        const order = await orderOf();
        const responses: ApiResponse[] = [
          await api.post(`/v1/store/orders/${order.id}/${action}`),
          await api.post(`/v1/store/orders/abc/${action}`),
          await api.post(`/v1/store/orders/9007199254740991/${action}`),
        ];
        const settled = await orderOf();
        await api.post(`/v1/store/orders/${settled.id}/${other}`);
        responses.push(await api.post(`/v1/store/orders/${settled.id}/${action}`));
        expect(responses.map(({ status }) => status)).toEqual([200, 400, 404, 409]);
        for (const response of responses) contract.expectResponse(operationId, response);
      });
    });

    it('getRateLimit 200, with and without a ban, and 429 past its own minute', async () => {
      const status = await api.get('/v1/rate_limit');
      expect(status.status).toBe(200);
      contract.expectResponse('getRateLimit', status);
      const clock = new FakeClock(Date.now());
      const strict = await createTestApp({
        database: testApp.database,
        env: { RATE_LIMIT_PLANS: '{"free":{"perMinute":1,"perDay":100}}', BAN_AFTER_REJECTIONS: '1' },
        overrides: [{ provide: Clock, useValue: clock }],
      });
      try {
        const { secret } = await strict.createKey({ plan: 'free' });
        const client = strict.anonymous.withHeaders({ authorization: `Bearer ${secret}` });
        await client.get('/v1/pets');
        expectErrorBody(await client.get('/v1/pets'), 429, 'rate_limited');
        // Past the second of a burst, refusals count toward the ban.
        clock.advance(1_000);
        expectErrorBody(await client.get('/v1/pets'), 429, 'rate_limited');
        expectErrorBody(await client.get('/v1/pets'), 429, 'api_key_banned');
        const banned = await client.get<{ ban: unknown }>('/v1/rate_limit');
        expect(banned.body.ban).toEqual({ until: expect.any(Number) });
        contract.expectResponse('getRateLimit', banned);
        let refused = banned;
        for (let i = 0; i < 40 && refused.status === 200; i++) refused = await client.get('/v1/rate_limit');
        expectErrorBody(refused, 429, 'rate_limited');
        contract.expectResponse('getRateLimit', refused);
      } finally {
        await strict.close();
      }
    });

    it('getUsage 200, 400 for a range it cannot serve, and 429 past its own minute', async () => {
      const usage = await api.get('/v1/usage?days=3');
      expect(usage.status).toBe(200);
      contract.expectResponse('getUsage', usage);
      const invalid = await api.get('/v1/usage?days=0');
      expectErrorBody(invalid, 400, 'validation_failed');
      contract.expectResponse('getUsage', invalid);
      const { secret } = await testApp.createKey({ plan: 'free' });
      const client = testApp.anonymous.withHeaders({ authorization: `Bearer ${secret}` });
      let refused = await client.get('/v1/usage');
      for (let i = 0; i < 40 && refused.status === 200; i++) refused = await client.get('/v1/usage');
      expectErrorBody(refused, 429, 'rate_limited');
      contract.expectResponse('getUsage', refused);
    });

    it('403 on every operation for a key without its scope', async () => {
      const headersOf = async (scopes: string[]) => ({ authorization: `Bearer ${(await testApp.createKey({ plan: 'pro', scopes })).secret}` });
      const [readOnly, writeOnly] = [await headersOf(['pets:read', 'orders:read']), await headersOf(['pets:write', 'orders:write'])];
      const responses: Array<[string, ApiResponse]> = [
        ['listPets', await testApp.anonymous.get('/v1/pets', writeOnly)],
        ['createPet', await testApp.anonymous.post('/v1/pets', { name: 'Rex', categoryId: 1 }, readOnly)],
        ['getPet', await testApp.anonymous.get('/v1/pets/1', writeOnly)],
        ['updatePet', await testApp.anonymous.request({ method: 'PATCH', url: '/v1/pets/1', payload: { name: 'Max' }, headers: readOnly })],
        ['deletePet', await testApp.anonymous.request({ method: 'DELETE', url: '/v1/pets/1', headers: readOnly })],
        ['getInventory', await testApp.anonymous.get('/v1/store/inventory', writeOnly)],
        ['placeOrder', await testApp.anonymous.post('/v1/store/orders', { petId: 1 }, readOnly)],
        ['listOrders', await testApp.anonymous.get('/v1/store/orders', writeOnly)],
        ['getOrder', await testApp.anonymous.get('/v1/store/orders/1', writeOnly)],
        ['deliverOrder', await testApp.anonymous.post('/v1/store/orders/1/deliver', undefined, readOnly)],
        ['cancelOrder', await testApp.anonymous.post('/v1/store/orders/1/cancel', undefined, readOnly)],
      ];
      for (const [operationId, response] of responses) {
        expectErrorBody(response, 403, 'insufficient_scope');
        contract.expectResponse(operationId, response);
      }
    });

    it('500 on every operation when the store fails', async () => {
      // The counters fail only where they are read without counting; the guard's counts still work.
      class UnreadableCounters extends MemoryRateLimitStore {
        unreadable = false;
        override peek(...args: Parameters<MemoryRateLimitStore['peek']>): Promise<RateLimitDecision> {
          return this.unreadable ? Promise.reject(new Error('counters unreachable')) : super.peek(...args);
        }
      }
      const counters = new UnreadableCounters();
      const broken = await createTestApp({ overrides: [{ provide: RateLimitStore, useValue: counters }] });
      try {
        // Verified first, so that no request of the key reads its address's counters before the lookup.
        expect((await broken.client.get('/v1/pets')).status).toBe(200);
        counters.unreadable = true;
        await broken.app.get(DataSource).query('DROP TABLE orders');
        await broken.app.get(DataSource).query('DROP TABLE pets');
        await broken.app.get(DataSource).query('DROP TABLE api_key_usage');
        for (const [operationId, response] of await callEveryOperation(broken.client)) {
          expectErrorBody(response, 500, 'internal_error');
          contract.expectResponse(operationId, response);
        }
      } finally {
        await broken.close();
      }
    });

    it('503 with Retry-After on every operation while the service drains', async () => {
      const draining = await createTestApp({ database: testApp.database });
      try {
        await draining.app.get(RequestDrain).drain(1_000);
        for (const [operationId, response] of await callEveryOperation(draining.client)) {
          expectErrorBody(response, 503, 'service_unavailable');
          contract.expectResponse(operationId, response);
        }
      } finally {
        await draining.close();
      }
    });

    it('401 and 429 on every operation', async () => {
      const limited = await createTestApp({ env: { RATE_LIMIT_PLANS: '{"free":{"perMinute":1,"perDay":100}}' } });
      try {
        const { secret } = await limited.createKey({ plan: 'free' });
        const client = limited.anonymous.withHeaders({ authorization: `Bearer ${secret}` });
        const calls: Array<[string, ApiRequest]> = [
          ['listPets', { url: '/v1/pets' }],
          ['createPet', { method: 'POST', url: '/v1/pets', payload: { name: 'Rex', categoryId: 1 } }],
          ['getPet', { url: '/v1/pets/1' }],
          ['updatePet', { method: 'PATCH', url: '/v1/pets/1', payload: { name: 'Max' } }],
          ['deletePet', { method: 'DELETE', url: '/v1/pets/1' }],
          ['getInventory', { url: '/v1/store/inventory' }],
          ['placeOrder', { method: 'POST', url: '/v1/store/orders', payload: { petId: 1 } }],
          ['listOrders', { url: '/v1/store/orders' }],
          ['getOrder', { url: '/v1/store/orders/1' }],
          ['deliverOrder', { method: 'POST', url: '/v1/store/orders/1/deliver' }],
          ['cancelOrder', { method: 'POST', url: '/v1/store/orders/1/cancel' }],
        ];
        for (const [index, [operationId, request]] of ([...calls, ['getRateLimit', { url: '/v1/rate_limit' }], ['getUsage', { url: '/v1/usage' }]] as Array<[string, ApiRequest]>).entries()) {
          // Each from its own address: callers without a key are limited per address.
          const unauthorized = await limited.anonymous.request({ ...request, remoteAddress: `192.0.2.${index + 1}` });
          expectErrorBody(unauthorized, 401, 'unauthorized');
          contract.expectResponse(operationId, unauthorized);
        }
        await client.get('/v1/pets');
        for (const [operationId, request] of calls) {
          const refused = await client.request(request);
          expectErrorBody(refused, 429, 'rate_limited');
          contract.expectResponse(operationId, refused);
        }
      } finally {
        await limited.close();
      }
    });

    it('every documented response was checked above', () => {
      expect(contract.documentedResponses().filter((response) => !contract.checked.has(response))).toEqual([]);
    });
  });

  describe('the contract check itself', () => {
    const rateLimit = {
      'x-ratelimit-limit': '60',
      'x-ratelimit-remaining': '59',
      'x-ratelimit-reset': '1893456000',
      'ratelimit-policy': '"minute";q=60;w=60, "day";q=1000;w=86400, "answers";q=600;w=60',
      ratelimit: '"minute";r=59;t=60, "day";r=999;t=86400, "answers";r=599;t=60',
    };
    const response = (status: number, body: unknown, headers: Record<string, string> = {}): ApiResponse => ({
      status,
      body,
      text: JSON.stringify(body),
      headers: { 'content-type': 'application/json; charset=utf-8', etag: '"3q2-7wAAAAAAAAAAAAAAAA"', ...rateLimit, ...headers },
    });
    const deprecation = { deprecation: '@1763683200', sunset: 'Thu, 05 Dec 2030 00:00:00 GMT', link: '<http://h/v1/pets>; rel="successor-version"' };
    const pet = { id: 1, name: 'Rex', categoryId: 3, status: 'available' };

    it('accepts a response that matches', () => {
      expect(contract.problems('getPet', response(200, pet, deprecation))).toEqual([]);
    });

    it.each([
      ['an id sent as a string', 'getPet', response(200, { ...pet, id: '1' }, deprecation), /body\/id must be integer/],
      ['a status outside the enumeration', 'getPet', response(200, { ...pet, status: 'lost' }, deprecation), /body\/status must be equal to one of/],
      ['a field too many on the Error body', 'getPet', response(404, { code: 'not_found', message: 'x', status: 404, stack: 'at' }, deprecation), /additional properties/],
      ['an unknown error code', 'listPets', response(400, { code: 'bad', message: 'x', status: 400 }), /body\/code must be equal to one of/],
      ['a missing required header', 'getPet', response(200, pet, { ...deprecation, sunset: undefined as never }), /header Sunset is required but missing/],
      ['a 200 without its ETag', 'listPets', response(200, [], { etag: undefined as never }), /header ETag is required but missing/],
      ['a 304 with a body', 'getPet', response(304, pet, deprecation), /status 304 declares no body but one was sent/],
      ['a missing rate-limit header', 'listPets', response(200, [], { 'x-ratelimit-reset': undefined as never }), /header X-RateLimit-Reset is required but missing/],
      ['a malformed declared header', 'listPets', response(200, [], { 'x-ratelimit-remaining': '-1' }), /header X-RateLimit-Remaining must be >= 0/],
      ['a missing RateLimit field', 'listPets', response(200, [], { ratelimit: undefined as never }), /header RateLimit is required but missing/],
      ['a malformed RateLimit field', 'listPets', response(200, [], { ratelimit: 'minute=59' }), /header RateLimit must match pattern/],
      ['a 401 without WWW-Authenticate', 'listPets', response(401, { code: 'unauthorized', message: 'x', status: 401 }), /header WWW-Authenticate is required/],
      ['a 429 without Retry-After', 'createPet', response(429, { code: 'rate_limited', message: 'x', status: 429 }), /header Retry-After is required/],
      ['an undocumented status', 'listPets', response(404, { code: 'not_found', message: 'x', status: 404 }), /does not document status 404/],
      ['an operation not in the document', 'adoptPet', response(204, undefined), /not in the document/],
    ])('refuses %s', (_case, operationId, sent, problem) => {
      expect(contract.problems(operationId, sent).join('\n')).toMatch(problem);
    });
  });
});
