import type { Connection } from 'mysql2/promise';
import { ApiClient, ApiResponse } from './support/api-client';
import { describeWithMariadbServer, LocalMariadb, startMariadb } from './support/mariadb-server';
import { createTestApp, TestApp } from './support/test-app';
import { waitFor } from './support/wait-for';

const DATABASE = 'animal_store_bounds_test';
/** The bounds under test: the README's defaults, set here so the spec says what it relies on. */
const ACQUIRE_TIMEOUT_MS = 2_000;
const STATEMENT_TIMEOUT_MS = 3_000;

interface Timed extends ApiResponse<{ id?: number; code?: string }> {
  readonly ms: number;
}

async function timed(call: Promise<ApiResponse<{ id?: number; code?: string }>>): Promise<Timed> {
  const started = performance.now();
  const response = await call;
  return { ...response, ms: performance.now() - started };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What every answer of a database that cannot serve looks like: 503, the Error body, and when to come back. */
function expectUnavailable(response: Timed): void {
  expect({ status: response.status, code: response.body?.code, retryAfter: response.headers['retry-after'] }).toEqual({
    status: 503,
    code: 'service_unavailable',
    retryAfter: '2',
  });
}

// A mariadbd of its own on a free loopback port: the spec locks the whole server and kills it.
describeWithMariadbServer('database bounds')('bounded waits on MariaDB [mysql]', () => {
  let server: LocalMariadb;
  let testApp: TestApp;
  let api: ApiClient;

  const storedNames = async (): Promise<string[]> =>
    (await server.query<{ name: string }>('SELECT name FROM pets ORDER BY name', [], DATABASE)).map((row) => row.name);
  /** Holds `sql` (a lock) on a connection of the spec's own until the function returned is called. */
  const holding = async (sql: string): Promise<() => Promise<void>> => {
    const connection: Connection = await server.connect(DATABASE);
    await connection.query(sql);
    return async () => {
      await connection.query('UNLOCK TABLES');
      await connection.end();
    };
  };

  beforeAll(async () => {
    server = await startMariadb('bounds');
    await server.query(`CREATE DATABASE \`${DATABASE}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
    testApp = await createTestApp({
      store: 'mysql',
      database: { url: server.url(DATABASE), drop: async () => undefined },
      env: { DATABASE_ACQUIRE_TIMEOUT_MS: String(ACQUIRE_TIMEOUT_MS), DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS) },
    });
    api = testApp.client;
  }, 120_000);

  afterAll(async () => {
    await testApp?.close();
    await server?.stop();
  });

  beforeEach(() => server.query('DELETE FROM pets', [], DATABASE));

  // Held for 20 s: with a 2 s connection bound and a 3 s statement bound, both bursts are answered well inside the lock.
  it('answers every create and read within the bounds while the database is write-locked, 503 with Retry-After at worst, and keeps exactly the acknowledged creates', async () => {
    expect((await api.get('/v1/pets')).status).toBe(200);
    const release = await holding('FLUSH TABLES WITH READ LOCK');
    const lockedAt = performance.now();
    const burst = (round: number) =>
      Promise.all([
        ...Array.from({ length: 40 }, (_, i) =>
          timed(api.post('/v1/pets', { name: `locked ${round}-${i}`, categoryId: 1 }, i % 2 ? { 'idempotency-key': `locked ${round}-${i}` } : {})),
        ),
        ...Array.from({ length: 40 }, (_, i) => timed(i % 2 ? api.get('/v1/pets?limit=5') : api.get('/v1/pets/1'))),
      ]);
    let answers: Timed[];
    try {
      answers = [...(await burst(1)), ...(await burst(2))];
      await sleep(Math.max(0, 20_000 - (performance.now() - lockedAt)));
    } finally {
      await release();
    }

    for (const answer of answers) {
      expect(answer.ms).toBeLessThan(STATEMENT_TIMEOUT_MS + ACQUIRE_TIMEOUT_MS + 1_000);
      expect([200, 201, 404, 503]).toContain(answer.status);
      if (answer.status === 503) expectUnavailable(answer);
    }
    const creates = answers.filter((_, index) => index % 80 < 40);
    // No write gets past the lock: every create is refused, none is half done.
    expect(creates.map((answer) => answer.status)).toEqual(creates.map(() => 503));
    // A statement the server stopped is not run later either.
    await sleep(1_000);
    await expect(storedNames()).resolves.toEqual([]);

    const retried = await api.post('/v1/pets', { name: 'locked 1-1', categoryId: 1 }, { 'idempotency-key': 'locked 1-1' });
    expect(retried.status).toBe(201);
    await expect(storedNames()).resolves.toEqual(['locked 1-1']);
  }, 60_000);

  // Creates stalled on the lock hold every connection of the writes' pool; reads have a pool of their own (docs/adr/0054).
  it('answers every read 200 within 1 s beside creates stalled on a write lock, and keeps every acknowledged create', async () => {
    const seeded = await api.post<{ id?: number }>('/v1/pets', { name: 'Seeded', categoryId: 1 });
    expect(seeded.status).toBe(201);
    const release = await holding('FLUSH TABLES WITH READ LOCK');
    const lockedAt = performance.now();
    let creates: Timed[];
    let reads: Timed[];
    try {
      const creating = Promise.all(
        Array.from({ length: 40 }, (_, i) => timed(api.post('/v1/pets', { name: `stalled ${i}`, categoryId: 1 }, i % 2 ? { 'idempotency-key': `stalled ${i}` } : {}))),
      );
      reads = await Promise.all(Array.from({ length: 40 }, (_, i) => timed(i % 2 ? api.get('/v1/pets?limit=5') : api.get(`/v1/pets/${seeded.body.id}`))));
      creates = await creating;
      await sleep(Math.max(0, 20_000 - (performance.now() - lockedAt)));
    } finally {
      await release();
    }

    expect(reads.map((read) => read.status)).toEqual(reads.map(() => 200));
    expect(Math.max(...reads.map((read) => read.ms))).toBeLessThan(1_000);
    for (const create of creates) {
      expect([201, 503]).toContain(create.status);
      if (create.status === 503) expectUnavailable(create);
    }
    await sleep(1_000);
    const acknowledged = creates.flatMap((create, i) => (create.status === 201 ? [`stalled ${i}`] : []));
    const stored = await storedNames();
    expect(acknowledged.filter((name) => !stored.includes(name))).toEqual([]);
  }, 60_000);

  it('answers 409 at once to retries of a create still in flight, stays ready meanwhile, and stores the create once', async () => {
    const key = { 'idempotency-key': 'in flight' };
    const pet = { name: 'Held', categoryId: 1 };
    const release = await holding('LOCK TABLES pets WRITE');
    let first: Promise<Timed> | undefined;
    try {
      first = timed(api.post('/v1/pets', pet, key));
      // The first request's claim is in, and its pet waits on the table lock.
      await waitFor(
        async () => (await server.query("SELECT 1 FROM information_schema.processlist WHERE info LIKE 'INSERT INTO pets%'")).length > 0,
        'the first create to wait on the locked table',
        4_000,
      );
      const retries = await Promise.all(Array.from({ length: 20 }, () => timed(api.post('/v1/pets', pet, key))));
      for (const retry of retries) {
        expect({ status: retry.status, code: retry.body?.code }).toEqual({ status: 409, code: 'idempotency_key_in_use' });
        expect(retry.ms).toBeLessThan(1_500);
      }
      const ready = await timed(testApp.anonymous.get('/readyz'));
      expect({ status: ready.status, fast: ready.ms < 1_500 }).toEqual({ status: 200, fast: true });
    } finally {
      await release();
    }
    const answered = await first!;
    expect(answered.status).toBe(201);
    const again = await api.post<{ id?: number }>('/v1/pets', pet, key);
    expect({ status: again.status, id: again.body?.id, replayed: again.headers['idempotent-replayed'] }).toEqual({ status: 201, id: answered.body?.id, replayed: 'true' });
    await expect(storedNames()).resolves.toEqual(['Held']);
  }, 60_000);

  it('answers every /v1 call 503 with Retry-After within 5 s while the database is down, and serves again once it is back', async () => {
    expect((await api.post('/v1/pets', { name: 'Before', categoryId: 1 })).status).toBe(201);
    await server.kill();
    try {
      const calls = () => [
        timed(api.get('/v1/pets')),
        timed(api.get('/v1/pets/1')),
        timed(api.post('/v1/pets', { name: 'Down', categoryId: 1 })),
        timed(api.post('/v1/pets', { name: 'Down', categoryId: 1 }, { 'idempotency-key': 'down' })),
      ];
      // Past the key cache's lifetime too, so the key lookup itself meets the dead database.
      const until = performance.now() + 6_000;
      while (performance.now() < until) {
        for (const answer of await Promise.all(calls())) {
          expectUnavailable(answer);
          expect(answer.ms).toBeLessThan(5_000);
        }
        await sleep(500);
      }
    } finally {
      await server.start();
    }
    await waitFor(async () => (await api.get('/v1/pets')).status === 200, 'the service to serve again', 20_000);
    const created = await api.post('/v1/pets', { name: 'After', categoryId: 1 }, { 'idempotency-key': 'down' });
    expect(created.status).toBe(201);
    await expect(storedNames()).resolves.toEqual(['After', 'Before']);
  }, 90_000);
});
