import { createHash, randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { KEY_CACHE_TTL_MS } from '../src/auth/application/api-key-authenticator';
import { ApiKeysService } from '../src/auth/application/api-keys.service';
import { ApiKeyRepository } from '../src/auth/domain/api-key.repository';
import { hashApiKeySecret } from '../src/auth/domain/api-key-secret';
import { Clock } from '../src/config/clock';
import { ApiResponse, expectErrorBody } from './support/api-client';
import { describeOnStore } from './support/describe-store';
import { FakeClock } from './support/fake-clock';
import { createTestApp, TestApp } from './support/test-app';
import { PETS_READ, PETS_WRITE } from '../src/pets/http/pet-scopes';

/** Each operation with the status it answers a valid key (pet 1 is made in beforeAll). */
const OPERATIONS = [
  { method: 'GET', url: '/v1/pets', ok: 200 },
  { method: 'POST', url: '/v1/pets', payload: { name: 'Rex', categoryId: 1 }, ok: 201 },
  { method: 'GET', url: '/v1/pets/1', ok: 200 },
] as const;

describeOnStore('API key authentication', () => {
  let testApp: TestApp;
  const clock = new FakeClock(Date.now());

  beforeAll(async () => {
    testApp = await createTestApp({ overrides: [{ provide: Clock, useValue: clock }] });
    expect((await testApp.client.post<{ id: number }>('/v1/pets', { name: 'First', categoryId: 1 })).body.id).toBe(1);
  });
  afterAll(() => testApp?.close());

  function expectUnauthorized(response: ApiResponse): void {
    expectErrorBody(response, 401, 'unauthorized');
    expect(response.headers['www-authenticate']).toBe('Bearer realm="animal-store"');
  }

  const refusals: Array<[string, Record<string, string>]> = [
    ['no Authorization header', {}],
    ['another scheme', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['Bearer without a token', { authorization: 'Bearer ' }],
    ['a token that is not a key', { authorization: 'Bearer hunter2' }],
    ['an unknown key', { authorization: `Bearer ask_test_${'A'.repeat(43)}` }],
    ['a live-shaped unknown key', { authorization: `Bearer ask_live_${'b'.repeat(43)}` }],
    ['a key whose checksum fails', { authorization: `Bearer ask_test_${'c'.repeat(43)}000000` }],
  ];

  describe.each(OPERATIONS)('$method $url', (operation) => {
    it.each(refusals)('answers 401 for %s, with the same body every time', async (_case, headers) => {
      const response = await testApp.anonymous.request({ ...operation, headers });
      expectUnauthorized(response);
      expect(response.body).toEqual({
        code: 'unauthorized',
        message: 'A valid API key is required: send Authorization: Bearer <key>',
        status: 401,
      });
    });

    it('accepts the scheme name in any case', async () => {
      for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR']) {
        const response = await testApp.anonymous.request({ ...operation, headers: { authorization: `${scheme} ${testApp.apiKey}` } });
        expect({ status: response.status, body: response.body }).toEqual({ status: operation.ok, body: expect.anything() });
      }
    });
  });

  it('does not store anything of a refused POST', async () => {
    const before = (await testApp.client.get<unknown[]>('/v1/pets?limit=100')).body.length;
    expectUnauthorized(await testApp.anonymous.post('/v1/pets', { name: 'Sneaky', categoryId: 1 }));
    expect((await testApp.client.get<unknown[]>('/v1/pets?limit=100')).body).toHaveLength(before);
  });

  it('stores only the SHA-256 hash of a key, never the key', async () => {
    const { id, secret } = await testApp.createKey({ plan: 'free', name: 'hash check' });
    expect(secret).toMatch(/^ask_test_[A-Za-z0-9_-]{43}[A-Za-z0-9]{6}$/);
    const rows: Array<Record<string, unknown>> = await testApp.app.get(DataSource).query('SELECT * FROM api_keys WHERE id = ?', [id]);
    expect(rows).toHaveLength(1);
    expect(rows[0].key_hash).toBe(createHash('sha256').update(secret).digest('hex'));
    expect(JSON.stringify(rows)).not.toContain(secret.slice('ask_test_'.length));
  });

  it('keeps accepting a key issued before checksums, whose format has none', async () => {
    const legacy = `ask_test_${randomBytes(32).toString('base64url')}`;
    await testApp.app.get(ApiKeyRepository).create({ name: 'legacy', plan: 'free', customLimits: null, scopes: [PETS_READ, PETS_WRITE], keyHash: hashApiKeySecret(legacy), createdAt: new Date(), expiresAt: null });
    expect((await testApp.anonymous.get('/v1/pets', { authorization: `Bearer ${legacy}` })).status).toBe(200);
  });

  it('answers a revoked key from the cache for 4 seconds after its lookup, and refuses it on every operation from then on', async () => {
    const { id, secret } = await testApp.createKey({ plan: 'pro', name: 'to revoke' });
    const client = testApp.anonymous.withHeaders({ authorization: `Bearer ${secret}` });
    expect((await client.get('/v1/pets')).status).toBe(200);
    await testApp.app.get(ApiKeysService).revoke(id);
    clock.advance(3_999);
    expect((await client.get('/v1/pets')).status).toBe(200);
    clock.advance(1);
    for (const operation of OPERATIONS) expectUnauthorized(await client.request(operation));
  });

  it('refuses a key from its expiry on, on every operation, though its lookup is cached', async () => {
    const { key, secret } = await testApp.app.get(ApiKeysService).create({ plan: 'pro', name: 'expiring', expiresInMs: 30_000 });
    expect(key.expiresAt?.getTime()).toBe(clock.now() + 30_000);
    const client = testApp.anonymous.withHeaders({ authorization: `Bearer ${secret}` });
    expect((await client.get('/v1/pets')).status).toBe(200);
    clock.advance(29_999);
    expect((await client.get('/v1/pets')).status).toBe(200);
    clock.advance(1);
    for (const operation of OPERATIONS) expectUnauthorized(await client.request(operation));
    const other = await createTestApp({ database: testApp.database, overrides: [{ provide: Clock, useValue: clock }] });
    try {
      expectUnauthorized(await other.anonymous.get('/v1/pets', { authorization: `Bearer ${secret}` }));
    } finally {
      await other.close();
    }
  });

  describe('roll', () => {
    const remaining = (response: ApiResponse) => Number(response.headers['x-ratelimit-remaining']);

    it('keeps the key, its plan and its rate-limit counters; the old secret works until the grace ends', async () => {
      const keys = testApp.app.get(ApiKeysService);
      const { id, secret: old } = await testApp.createKey({ plan: 'pro', name: 'rolled' });
      const oldClient = testApp.anonymous.withHeaders({ authorization: `Bearer ${old}` });
      const before = remaining(await oldClient.get('/v1/pets'));
      const rolled = await keys.roll(id, 3_600_000);
      expect(rolled.key).toMatchObject({ id, name: 'rolled', plan: 'pro' });
      expect(rolled.previousUntil?.getTime()).toBe(clock.now() + 3_600_000);
      const newClient = testApp.anonymous.withHeaders({ authorization: `Bearer ${rolled.secret}` });
      const after = await newClient.get('/v1/pets');
      expect({ status: after.status, remaining: remaining(after), limit: after.headers['x-ratelimit-limit'] }).toEqual({
        status: 200,
        remaining: before - 1,
        limit: '300',
      });
      expect(remaining(await oldClient.get('/v1/pets'))).toBe(before - 2);
      clock.advance(3_600_000 - 1);
      expect((await oldClient.get('/v1/pets')).status).toBe(200);
      clock.advance(1);
      for (const operation of OPERATIONS) expectUnauthorized(await oldClient.request(operation));
      expect((await newClient.get('/v1/pets')).status).toBe(200);
    });

    it('without grace, refuses the old secret on every instance once the key cache has expired', async () => {
      const keys = testApp.app.get(ApiKeysService);
      const { id, secret: old } = await testApp.createKey({ plan: 'free', name: 'rolled at once' });
      const oldClient = testApp.anonymous.withHeaders({ authorization: `Bearer ${old}` });
      expect((await oldClient.get('/v1/pets')).status).toBe(200);
      const { secret, previousUntil } = await keys.roll(id, 0);
      expect(previousUntil).toBeNull();
      clock.advance(KEY_CACHE_TTL_MS);
      expectUnauthorized(await oldClient.get('/v1/pets'));
      expect((await testApp.anonymous.get('/v1/pets', { authorization: `Bearer ${secret}` })).status).toBe(200);
    });

    it('ends the grace of an earlier roll when the key is rolled again, and refuses a revoked key', async () => {
      const keys = testApp.app.get(ApiKeysService);
      const { id, secret: first } = await testApp.createKey({ plan: 'free' });
      const { secret: second } = await keys.roll(id, 3_600_000);
      const { secret: third } = await keys.roll(id, 3_600_000);
      clock.advance(KEY_CACHE_TTL_MS);
      expectUnauthorized(await testApp.anonymous.get('/v1/pets', { authorization: `Bearer ${first}` }));
      for (const secret of [second, third]) {
        expect((await testApp.anonymous.get('/v1/pets', { authorization: `Bearer ${secret}` })).status).toBe(200);
      }
      await keys.revoke(id);
      await expect(keys.roll(id, 0)).rejects.toThrow(`API key ${id} is revoked`);
    });
  });

  describe('last use', () => {
    const lastUseOf = async (app: TestApp, id: number) => (await app.app.get(ApiKeysService).list()).find((key) => key.id === id)?.lastUsedAt;
    /** The first answer of `read` that is not null: a batch goes to the store asynchronously, after the clock moved. */
    async function eventually<T>(read: () => Promise<T | null | undefined>): Promise<T | null | undefined> {
      let value = await read();
      for (let attempt = 0; value == null && attempt < 100; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        value = await read();
      }
      return value;
    }

    it('reaches the store by itself 5 seconds after the request, in a batch, not with the request', async () => {
      const { id, secret } = await testApp.createKey({ plan: 'pro', name: 'used' });
      // Whatever earlier specs left pending goes now, so the batch below starts with this request.
      clock.advance(5_000);
      const usedAt = clock.now();
      expect((await testApp.anonymous.get('/v1/pets', { authorization: `Bearer ${secret}` })).status).toBe(200);
      clock.advance(4_999);
      await expect(lastUseOf(testApp, id)).resolves.toBeNull();
      clock.advance(1);
      await expect(eventually(() => lastUseOf(testApp, id))).resolves.toEqual(new Date(usedAt));
    });

    it('is written when an instance shuts down, and never moves back', async () => {
      const { id, secret } = await testApp.createKey({ plan: 'pro', name: 'used at shutdown' });
      clock.advance(60_000);
      const latest = clock.now();
      await testApp.anonymous.get('/v1/pets', { authorization: `Bearer ${secret}` });
      clock.advance(5_000);
      await expect(eventually(() => lastUseOf(testApp, id))).resolves.toEqual(new Date(latest));
      const older = new FakeClock(latest - 30_000);
      const other = await createTestApp({ database: testApp.database, overrides: [{ provide: Clock, useValue: older }] });
      await other.anonymous.get('/v1/pets', { authorization: `Bearer ${secret}` });
      await other.close();
      await expect(lastUseOf(testApp, id)).resolves.toEqual(new Date(latest));
      const newer = await createTestApp({ database: testApp.database, overrides: [{ provide: Clock, useValue: new FakeClock(latest + 1_000) }] });
      await newer.anonymous.get('/v1/pets', { authorization: `Bearer ${secret}` });
      await newer.close();
      await expect(lastUseOf(testApp, id)).resolves.toEqual(new Date(latest + 1_000));
    });
  });

  it('answers 404, not 401, for an unknown /v1 address without a key', async () => {
    expectErrorBody(await testApp.anonymous.get('/v1/store/carts'), 404, 'not_found');
  });
});
