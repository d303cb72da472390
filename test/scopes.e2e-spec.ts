import { Controller, Get } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { RequireScope } from '../src/auth/http/require-scope.decorator';
import { defineScope } from '../src/auth/domain/scope';
import { generateApiKeySecret, hashApiKeySecret } from '../src/auth/domain/api-key-secret';
import { createDataSourceOptions } from '../src/database/database-options';
import { runMigrations } from '../src/database/run-migrations';
import { ApiClient, ApiResponse, expectErrorBody } from './support/api-client';
import { describeOnStore } from './support/describe-store';
import { createTestApp, TestApp } from './support/test-app';
import { migrationClasses } from './support/migrated-data-source';
import { createTestDatabase } from './support/test-database';

const SCOPES_MIGRATION = 'ApiKeyScopes1764028800000';
const EVERY_SCOPE_MIGRATION = 'EveryScope1765065700000';

/** An operation added after the keys were made, guarded by a scope of its own. */
@Controller({ path: 'later', version: '1' })
class LaterController {
  @Get()
  @RequireScope(defineScope('later:read', 'Read what came later'))
  read(): { later: boolean } {
    return { later: true };
  }
}
const remaining = (response: ApiResponse) => Number(response.headers['x-ratelimit-remaining']);

describeOnStore('key scopes', () => {
  let testApp: TestApp;
  let reader: ApiClient;
  let writer: ApiClient;

  beforeAll(async () => {
    testApp = await createTestApp({ env: { RATE_LIMIT_PLANS: '{"free":{"perMinute":50,"perDay":1000}}' }, controllers: [LaterController] });
    const readOnly = await testApp.createKey({ plan: 'free', scopes: ['pets:read'] });
    reader = testApp.anonymous.withHeaders({ authorization: `Bearer ${readOnly.secret}` });
    const full = await testApp.createKey({ plan: 'free' });
    writer = testApp.anonymous.withHeaders({ authorization: `Bearer ${full.secret}` });
  });
  afterAll(() => testApp?.close());

  it('lets a read-only key list and get', async () => {
    const created = await writer.post<{ id: number }>('/v1/pets', { name: 'Rex', categoryId: 1 });
    expect(created.status).toBe(201);
    const list = await reader.get<Array<{ id: number }>>('/v1/pets');
    expect(list.status).toBe(200);
    expect(list.body.map((pet) => pet.id)).toContain(created.body.id);
    const got = await reader.get(`/v1/pets/${created.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created.body);
  });

  it("answers a read-only key's create 403 insufficient_scope, naming the scope in WWW-Authenticate, and counts it", async () => {
    const before = remaining(await reader.get('/v1/pets'));
    const refused = await reader.post('/v1/pets', { name: 'Rex', categoryId: 1 });
    expectErrorBody(refused, 403, 'insufficient_scope');
    expect(refused.headers['www-authenticate']).toBe('Bearer realm="animal-store", error="insufficient_scope", scope="pets:write"');
    expect(remaining(refused)).toBe(before - 1);
    expect(refused.headers['x-ratelimit-limit']).toBe('50');
    expect(remaining(await reader.get('/v1/pets'))).toBe(before - 2);
  });

  it('stores nothing for a refused create, with or without an Idempotency-Key', async () => {
    const count = async () => (await writer.get<unknown[]>('/v1/pets?limit=100')).body.length;
    const pets = await count();
    expectErrorBody(await reader.post('/v1/pets', { name: 'Tom', categoryId: 1 }, { 'idempotency-key': 'scoped-1' }), 403, 'insufficient_scope');
    expect(await count()).toBe(pets);
  });

  it('keeps the 401 contract: no key, or a wrong one, is 401 with the plain challenge', async () => {
    for (const headers of [{}, { authorization: `Bearer ask_test_${'x'.repeat(43)}` }] as Array<Record<string, string>>) {
      const response = await testApp.anonymous.post('/v1/pets', { name: 'Rex', categoryId: 1 }, headers);
      expectErrorBody(response, 401, 'unauthorized');
      expect(response.headers['www-authenticate']).toBe('Bearer realm="animal-store"');
    }
  });

  it('leaves a key with both scopes as it was: it lists, gets and creates', async () => {
    const created = await writer.post<{ id: number }>('/v1/pets', { name: 'Max', categoryId: 2 });
    expect(created.status).toBe(201);
    expect((await writer.get(`/v1/pets/${created.body.id}`)).status).toBe(200);
    expect((await writer.get('/v1/pets')).status).toBe(200);
  });

  it('lets a key made before scopes existed keep both after the migration', async () => {
    const database = await createTestDatabase();
    const options = createDataSourceOptions(database.url);
    const migrations = await migrationClasses(options);
    const before = migrations.slice(0, migrations.findIndex((migration) => migration.name === SCOPES_MIGRATION));
    const old = await new DataSource({ ...options, migrations: before }).initialize();
    const secret = generateApiKeySecret('test');
    try {
      await runMigrations(old);
      await old.query("INSERT INTO accounts (name, plan, created_at) VALUES ('old', 'pro', '2026-01-01 00:00:00')");
      await old.query("INSERT INTO api_keys (name, key_hash, account_id, created_at) VALUES ('old', ?, 1, '2026-01-01 00:00:00')", [
        hashApiKeySecret(secret),
      ]);
    } finally {
      await old.destroy();
    }
    const upgraded = await createTestApp({ database });
    try {
      const oldKey = upgraded.anonymous.withHeaders({ authorization: `Bearer ${secret}` });
      expect((await oldKey.get('/v1/pets')).status).toBe(200);
      expect((await oldKey.post('/v1/pets', { name: 'Old', categoryId: 1 })).status).toBe(201);
    } finally {
      await upgraded.close();
      await database.drop();
    }
  });

  it('lets a key made without scopes change, remove and count pets, and use an operation added later', async () => {
    const created = await writer.post<{ id: number }>('/v1/pets', { name: 'Rex', categoryId: 1 });
    expect((await writer.request({ method: 'PATCH', url: `/v1/pets/${created.body.id}`, payload: { status: 'sold' } })).status).toBe(200);
    expect((await writer.get('/v1/store/inventory')).status).toBe(200);
    expect((await writer.request({ method: 'DELETE', url: `/v1/pets/${created.body.id}` })).status).toBe(204);
    expect(await writer.get('/v1/later')).toMatchObject({ status: 200, body: { later: true } });
  });

  it('keeps a key made with scopes to exactly those: no change or removal for pets:read, no later operation for both pet scopes', async () => {
    const created = await writer.post<{ id: number }>('/v1/pets', { name: 'Rex', categoryId: 1 });
    expect((await reader.get('/v1/store/inventory')).status).toBe(200);
    for (const request of [
      { method: 'PATCH', url: `/v1/pets/${created.body.id}`, payload: { name: 'Max' } },
      { method: 'DELETE', url: `/v1/pets/${created.body.id}` },
    ] as const) {
      const refused = await reader.request(request);
      expectErrorBody(refused, 403, 'insufficient_scope');
      expect(refused.headers['www-authenticate']).toBe('Bearer realm="animal-store", error="insufficient_scope", scope="pets:write"');
    }
    const both = await testApp.createKey({ plan: 'free', scopes: ['pets:read', 'pets:write'] });
    const refused = await testApp.anonymous.get('/v1/later', { authorization: `Bearer ${both.secret}` });
    expectErrorBody(refused, 403, 'insufficient_scope');
    const sellers = await testApp.createKey({ plan: 'free', scopes: ['orders:read', 'orders:write'] });
    expectErrorBody(await testApp.anonymous.get('/v1/pets', { authorization: `Bearer ${sellers.secret}` }), 403, 'insufficient_scope');
  });

  it('counts a key stored with the old default as made without scopes once migrated, and leaves a narrower one as it was', async () => {
    const database = await createTestDatabase();
    const options = createDataSourceOptions(database.url);
    const migrations = await migrationClasses(options);
    const before = migrations.slice(0, migrations.findIndex((migration) => migration.name === EVERY_SCOPE_MIGRATION));
    const old = await new DataSource({ ...options, migrations: before }).initialize();
    const [everything, readOnly] = [generateApiKeySecret('test'), generateApiKeySecret('test')];
    try {
      await runMigrations(old);
      await old.query("INSERT INTO accounts (name, plan, created_at) VALUES ('old', 'pro', '2026-01-01 00:00:00')");
      for (const [secret, scopes] of [
        [everything, 'pets:read pets:write'],
        [readOnly, 'pets:read'],
      ]) {
        await old.query("INSERT INTO api_keys (name, key_hash, account_id, scopes, created_at) VALUES ('old', ?, 1, ?, '2026-01-01 00:00:00')", [
          hashApiKeySecret(secret),
          scopes,
        ]);
      }
    } finally {
      await old.destroy();
    }
    const upgraded = await createTestApp({ database, controllers: [LaterController] });
    try {
      await expect(upgraded.app.get(DataSource).query('SELECT scopes FROM api_keys WHERE name = ? ORDER BY id', ['old'])).resolves.toEqual([
        { scopes: '*' },
        { scopes: 'pets:read' },
      ]);
      const [full, narrow] = [everything, readOnly].map((secret) => upgraded.anonymous.withHeaders({ authorization: `Bearer ${secret}` }));
      const created = await full.post<{ id: number }>('/v1/pets', { name: 'Old', categoryId: 1 });
      expect(created.status).toBe(201);
      expect((await full.request({ method: 'PATCH', url: `/v1/pets/${created.body.id}`, payload: { status: 'pending' } })).status).toBe(200);
      expect((await full.get('/v1/later')).status).toBe(200);
      expect((await narrow.get('/v1/pets')).status).toBe(200);
      expectErrorBody(await narrow.request({ method: 'PATCH', url: `/v1/pets/${created.body.id}`, payload: { name: 'New' } }), 403, 'insufficient_scope');
      expectErrorBody(await narrow.get('/v1/later'), 403, 'insufficient_scope');
    } finally {
      await upgraded.close();
      await database.drop();
    }
  });
});
