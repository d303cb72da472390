import { DataSource } from 'typeorm';
import { createTestDatabase, TestDatabase } from './support/test-database';
import { createTestApp } from './support/test-app';
import { ServiceProcess, startServiceProcess } from './support/service-process';

const mysqlUp = process.env.MYSQL_AVAILABLE === '1';

(mysqlUp ? describe : describe.skip)('one Idempotency-Key sent at once to two instances [mysql]', () => {
  let database: TestDatabase;
  let key: string;
  const instances: ServiceProcess[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('mysql');
    const setup = await createTestApp({ database });
    key = (await setup.createKey({ plan: 'enterprise', name: 'idempotency', perMinute: 1_000_000, perDay: 1_000_000_000 })).secret;
    await setup.close();
    // The 200 creates are in flight at once: the concurrency cap is not what this tests.
    const env = { DATABASE_URL: database.url, RATE_LIMIT_PLANS: '{"enterprise":{"concurrency":200}}' };
    instances.push(...(await Promise.all([startServiceProcess(env), startServiceProcess(env)])));
  }, 90_000);

  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.stop()));
    await database?.drop();
  });

  it('stores exactly one pet for 200 identical concurrent creates; every success is that pet', async () => {
    const body = JSON.stringify({ name: 'Rex', categoryId: 3 });
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        fetch(`${instances[i % 2].url}/v1/pets`, {
          method: 'POST',
          body,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': 'one-pet' },
        }).then(async (response) => ({
          status: response.status,
          body: (await response.json()) as { id?: number; code?: string },
          replayed: response.headers.get('idempotent-replayed'),
        })),
      ),
    );
    const created = responses.filter((r) => r.status === 201);
    const inUse = responses.filter((r) => r.status === 409);
    expect(created.length + inUse.length).toBe(200);
    expect(inUse.every((r) => r.body.code === 'idempotency_key_in_use')).toBe(true);
    expect(created.filter((r) => r.replayed === null)).toHaveLength(1);
    expect(new Set(created.map((r) => r.body.id)).size).toBe(1);

    const store = await createTestApp({ database });
    try {
      const [{ n }] = await store.app.get(DataSource).query('SELECT COUNT(*) AS n FROM pets');
      expect(Number(n)).toBe(1);
    } finally {
      await store.close();
    }
  }, 60_000);
});
