import { ApiClient } from './support/api-client';
import { LocalReplication, startReplication } from './support/mariadb-replication';
import { describeWithMariadbServer } from './support/mariadb-server';
import { createTestApp, TestApp } from './support/test-app';

interface Pet {
  id: number;
  name: string;
}

const REPLICA_ONLY_ID = 900_001;

async function eventually(condition: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

// Its own primary and replica, each a mariadbd on a free loopback port, so the machine's MariaDB needs no binlog.
describeWithMariadbServer('read-replica')('pet reads on a MariaDB read replica [mysql]', () => {
  let replication: LocalReplication;
  let testApp: TestApp;
  /** A key that created a pet: reads its own writes. */
  let writer: ApiClient;
  /** A key that never writes: its reads may lag. */
  let reader: ApiClient;

  const names = (pets: Pet[]) => pets.map((pet) => pet.name);
  const listed = async (client: ApiClient): Promise<string[]> => {
    const response = await client.get<Pet[]>('/v1/pets?limit=100');
    expect(response.status).toBe(200);
    return names(response.body);
  };
  const readsBy = async (target: 'primary' | 'replica'): Promise<number> => {
    const text = (await testApp.anonymous.get('/metrics')).text;
    return Number(new RegExp(`^database_reads_total\\{target="${target}"\\} (\\d+)$`, 'm').exec(text)?.[1]);
  };
  const replicaState = async (): Promise<string> => {
    const response = await testApp.anonymous.get<{ status: string; checks: Record<string, string> }>('/readyz');
    expect(response.status).toBe(200);
    expect(response.body.status).toBe('ready');
    return response.body.checks['replica-1'];
  };

  beforeAll(async () => {
    replication = await startReplication('animal_store_replica_test');
    testApp = await createTestApp({
      store: 'mysql',
      database: { url: replication.primaryUrl, drop: async () => undefined },
      env: { DATABASE_REPLICA_URLS: replication.replicaUrl, DATABASE_REPLICA_MAX_LAG_SECONDS: '5' },
    });
    writer = testApp.client;
    reader = testApp.anonymous.withHeaders({ authorization: `Bearer ${(await testApp.createKey({ plan: 'pro', name: 'reader' })).secret}` });
    await replication.caughtUp();
    // A row only the replica holds: whoever sees it was answered by the replica.
    await replication.query('replica', "INSERT INTO pets (id, name, category_id, status) VALUES (?, 'only-on-replica', 1, 'available')", [REPLICA_ONLY_ID]);
  }, 120_000);

  afterAll(async () => {
    await testApp?.close();
    await replication?.stop();
  });

  it('serves list and get from the replica, counts them by target, and keeps writes on the primary', async () => {
    await expect(replicaState()).resolves.toBe('up');
    const replicaReads = await readsBy('replica');
    const response = await reader.get<Pet>(`/v1/pets/${REPLICA_ONLY_ID}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id: REPLICA_ONLY_ID, name: 'only-on-replica', categoryId: 1, status: 'available' });
    await expect(listed(reader)).resolves.toContain('only-on-replica');
    await expect(readsBy('replica')).resolves.toBe(replicaReads + 2);

    const created = await writer.post<Pet>('/v1/pets', { name: 'Written', categoryId: 2 });
    expect(created.status).toBe(201);
    await expect(replication.query('primary', 'SELECT name FROM pets WHERE id = ?', [created.body.id])).resolves.toEqual([{ name: 'Written' }]);
    await expect(replication.query('primary', 'SELECT name FROM pets WHERE id = ?', [REPLICA_ONLY_ID])).resolves.toEqual([]);
  });

  it('shows a create to its caller at once while replication is stopped; another caller sees the lagging replica', async () => {
    await replication.query('replica', 'STOP SLAVE SQL_THREAD');
    try {
      const created = await writer.post<Pet>('/v1/pets', { name: 'Rex', categoryId: 3 });
      expect(created.status).toBe(201);
      const own = await writer.get<Pet>(`/v1/pets/${created.body.id}`);
      expect(own.status).toBe(200);
      expect(own.body).toEqual(created.body);
      await expect(listed(writer)).resolves.toContain('Rex');

      // Another caller still reads the replica (it holds the replica-only row), which lacks Rex for now...
      const others = await listed(reader);
      expect(others).toContain('only-on-replica');
      expect(others).not.toContain('Rex');
      // ...yet a get never answers 404 for a pet that exists: the primary has the last word on a miss.
      await expect(reader.get<Pet>(`/v1/pets/${created.body.id}`)).resolves.toMatchObject({ status: 200, body: created.body });

      // Stopped past the lag bound, the replica leaves reads: everyone reads the primary, and the service stays ready.
      await eventually(async () => (await replicaState()) === 'degraded', 'the stopped replica to leave reads');
      const primaryReads = await readsBy('primary');
      const now = await listed(reader);
      expect(now).toContain('Rex');
      expect(now).not.toContain('only-on-replica');
      await expect(readsBy('primary')).resolves.toBe(primaryReads + 1);
    } finally {
      await replication.query('replica', 'START SLAVE SQL_THREAD');
    }
    await replication.caughtUp();
    await eventually(async () => (await replicaState()) === 'up', 'the replica to rejoin reads');
    await expect(listed(reader)).resolves.toEqual(expect.arrayContaining(['Rex', 'only-on-replica']));
  });

  it('answers every request while the replica is dead, on the primary, and reads from the replica again once it is back', async () => {
    await replication.killReplica();
    const created = await writer.post<Pet>('/v1/pets', { name: 'During the outage', categoryId: 4 });
    expect(created.status).toBe(201);
    // Before and after the monitor notices, nothing fails: a read that fails on the replica is answered by the primary.
    for (let round = 0; round < 5; round++) {
      await expect(listed(reader)).resolves.toContain('During the outage');
      await expect(reader.get(`/v1/pets/${created.body.id}`)).resolves.toMatchObject({ status: 200 });
      await expect(reader.get(`/v1/pets/${REPLICA_ONLY_ID}`)).resolves.toMatchObject({ status: 404 });
    }
    await eventually(async () => (await replicaState()) === 'degraded', 'the dead replica to leave reads');
    const replicaReads = await readsBy('replica');
    await expect(listed(reader)).resolves.not.toContain('only-on-replica');
    await expect(readsBy('replica')).resolves.toBe(replicaReads);

    await replication.restartReplica();
    await replication.caughtUp();
    await eventually(async () => (await replicaState()) === 'up', 'the restarted replica to rejoin reads');
    await expect(reader.get<Pet>(`/v1/pets/${REPLICA_ONLY_ID}`)).resolves.toMatchObject({ status: 200, body: { name: 'only-on-replica' } });
    await expect(listed(reader)).resolves.toEqual(expect.arrayContaining(['During the outage', 'only-on-replica']));
    await expect(readsBy('replica')).resolves.toBe(replicaReads + 2);
  });
});
