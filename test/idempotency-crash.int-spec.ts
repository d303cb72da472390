import { DataSource } from 'typeorm';
import { createDataSourceOptions } from '../src/database/database-options';
import { ServiceProcess, startServiceProcess } from './support/service-process';
import { createTestApp } from './support/test-app';
import { createTestDatabase, TestDatabase, TestStore } from './support/test-database';

/** How long after the stream starts each kill comes: a different moment of a create's life each time. */
const KILL_AFTER_MS = [150, 420, 700, 1_100];
const IN_FLIGHT = 16;
/** A retry meets a claim of the killed instance (a wait, or a 409 after a long one) only until the database has undone its transactions. */
const RETRY_DEADLINE_MS = 60_000;

interface Attempt {
  readonly key: string;
  /** The id of the 201 the client read, if it read one before the instance died. */
  acknowledgedId?: number;
}

interface Created {
  readonly id: number;
  readonly replayed: boolean;
}

const stores: TestStore[] = process.env.MYSQL_AVAILABLE === '1' ? ['mysql', 'sqlite'] : ['sqlite'];

/**
 * What an operator sees when an instance is killed with SIGKILL while creates
 * with an Idempotency-Key stream into it: every create retried with its key
 * until it gets a 201 stores exactly one pet, and a create the client saw
 * succeed is replayed with the id it first got. On MySQL the retries go to a
 * second instance that stayed up; on SQLite, whose file one process owns, to
 * the killed instance restarted.
 */
describe.each(stores)('creates with an Idempotency-Key through instances killed mid-stream [%s]', (store) => {
  let database: TestDatabase;
  let secret: string;
  let env: Record<string, string>;
  const running: ServiceProcess[] = [];

  beforeAll(async () => {
    database = await createTestDatabase(store);
    const setup = await createTestApp({ database });
    secret = (await setup.createKey({ plan: 'enterprise', name: 'crash', perMinute: 1_000_000_000, perDay: 1_000_000_000 })).secret;
    await setup.close();
    env = { DATABASE_URL: database.url };
  }, 60_000);

  afterAll(async () => {
    await Promise.all(running.map((instance) => instance.stop()));
    await database?.drop();
  });

  const start = async (): Promise<ServiceProcess> => {
    const instance = await startServiceProcess(env, 60_000);
    running.push(instance);
    return instance;
  };

  const post = async (instance: ServiceProcess, key: string): Promise<{ status: number; body: { id?: number }; replayed: boolean }> => {
    const response = await fetch(`${instance.url}/v1/pets`, {
      method: 'POST',
      // The name is the key, so the store tells how many pets each key made.
      body: JSON.stringify({ name: key, categoryId: 1 }),
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', 'idempotency-key': key },
    });
    return { status: response.status, body: (await response.json()) as { id?: number }, replayed: response.headers.get('idempotent-replayed') === 'true' };
  };

  /** Creates with new keys, IN_FLIGHT at a time, until the instance dies; SIGKILL lands `killAfterMs` after the first. */
  async function streamUntilKilled(instance: ServiceProcess, round: number, killAfterMs: number): Promise<Attempt[]> {
    const attempts: Attempt[] = [];
    let alive = true;
    const killer = setTimeout(() => instance.child.kill('SIGKILL'), killAfterMs);
    const worker = async () => {
      while (alive) {
        const attempt: Attempt = { key: `round-${round}-${attempts.length}` };
        attempts.push(attempt);
        const answer = await post(instance, attempt.key).catch(() => undefined);
        // No answer: the instance is gone, and the answer with it.
        if (answer === undefined) {
          alive = false;
          break;
        }
        if (answer.status !== 201) throw new Error(`${attempt.key}: ${answer.status} ${JSON.stringify(answer.body)}`);
        attempt.acknowledgedId = answer.body.id;
      }
    };
    try {
      await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    } finally {
      clearTimeout(killer);
    }
    await instance.stop();
    return attempts;
  }

  /** Retries one create until it gets a 201; a 409 means a claim of the dead instance still holds. */
  async function retryUntilCreated(instance: ServiceProcess, key: string): Promise<Created> {
    const deadline = Date.now() + RETRY_DEADLINE_MS;
    for (;;) {
      const answer = await post(instance, key);
      if (answer.status === 201) return { id: answer.body.id!, replayed: answer.replayed };
      if (answer.status !== 409 || Date.now() > deadline) throw new Error(`${key}: ${answer.status} ${JSON.stringify(answer.body)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  it(
    `stores exactly one pet per key, through ${KILL_AFTER_MS.length} kills at different moments, and replays every acknowledged create with its first id`,
    async () => {
      const survivor = store === 'mysql' ? await start() : undefined;
      const attempts: Attempt[] = [];
      const lostInFlight: number[] = [];
      for (const [round, killAfterMs] of KILL_AFTER_MS.entries()) {
        const victim = await start();
        const streamed = await streamUntilKilled(victim, round, killAfterMs);
        expect(victim.child.signalCode).toBe('SIGKILL');
        attempts.push(...streamed);
        lostInFlight.push(streamed.filter((attempt) => attempt.acknowledgedId === undefined).length);
      }
      // Every kill cut creates off mid-way; else it would prove nothing.
      expect(lostInFlight.every((lost) => lost > 0)).toBe(true);

      const retrying = survivor ?? (await start());
      const retried = new Map<string, Created>();
      const queue = [...attempts];
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          for (let attempt = queue.shift(); attempt; attempt = queue.shift()) retried.set(attempt.key, await retryUntilCreated(retrying, attempt.key));
        }),
      );

      const acknowledged = attempts.filter((attempt) => attempt.acknowledgedId !== undefined);
      const mismatched = acknowledged.filter(({ key, acknowledgedId }) => retried.get(key)?.id !== acknowledgedId || !retried.get(key)?.replayed);
      expect(mismatched.map(({ key, acknowledgedId }) => ({ key, acknowledgedId, retried: retried.get(key) }))).toEqual([]);

      await retrying.stop();
      const dataSource = await new DataSource(createDataSourceOptions(database.url)).initialize();
      try {
        const rows: Array<{ name: string; n: number | string }> = await dataSource.query('SELECT name, COUNT(*) AS n FROM pets GROUP BY name');
        const petsPerKey = new Map(rows.map(({ name, n }) => [name, Number(n)]));
        const notOne = attempts.filter(({ key }) => petsPerKey.get(key) !== 1).map(({ key }) => `${key}: ${petsPerKey.get(key) ?? 0} pets`);
        expect({ keys: attempts.length, acknowledged: acknowledged.length, notExactlyOne: notOne }).toEqual({
          keys: attempts.length,
          acknowledged: acknowledged.length,
          notExactlyOne: [],
        });
        expect(petsPerKey.size).toBe(attempts.length);
        // Each retry that got the first answer again, and each that created the first pet, names that pet.
        const ids: Array<{ id: number; name: string }> = await dataSource.query('SELECT id, name FROM pets');
        expect(ids.every(({ id, name }) => retried.get(name)?.id === Number(id))).toBe(true);
      } finally {
        await dataSource.destroy();
      }
    },
    300_000,
  );
});
