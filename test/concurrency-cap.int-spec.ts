import { type Connection, createConnection } from 'mysql2/promise';
import Redis from 'ioredis';
import { concurrencyRedisKey } from '../src/rate-limit/infrastructure/redis-concurrency.store';
import { createTestApp } from './support/test-app';
import { createTestDatabase, TestDatabase } from './support/test-database';
import { ServiceProcess, startServiceProcess } from './support/service-process';
import { deleteKeysUnder, randomKeyPrefix, TEST_REDIS_URL } from './support/test-redis';
import { waitFor } from './support/wait-for';

const servicesUp = process.env.REDIS_AVAILABLE === '1' && process.env.MYSQL_AVAILABLE === '1';

/** The cap of the spec's free plan, and a quota far above what it sends. */
const CAP = 4;
const PLANS = `{"free":{"perMinute":10000,"perDay":100000,"concurrency":${CAP}}}`;

interface Answer {
  readonly status: number;
  readonly code?: string;
  readonly retryAfter: string | null;
}

async function send(instance: ServiceProcess, secret: string): Promise<Answer> {
  const response = await fetch(`${instance.url}/v1/pets?limit=1`, { headers: { authorization: `Bearer ${secret}` }, signal: AbortSignal.timeout(30_000) });
  const body = (await response.json()) as { code?: string };
  return { status: response.status, code: body.code, retryAfter: response.headers.get('retry-after') };
}

/** Requests sent at once, and the answers in the order they came. */
function sendAll(targets: readonly ServiceProcess[], secret: string): { answers: Answer[]; all: Promise<Answer[]> } {
  const answers: Answer[] = [];
  const all = Promise.all(targets.map((instance) => send(instance, secret).then((answer) => (answers.push(answer), answer))));
  return { answers, all };
}

(servicesUp ? describe : describe.skip)('the concurrency cap shared by two instances [redis + mysql]', () => {
  let database: TestDatabase;
  let secret: string;
  let tracker: string;
  const prefix = randomKeyPrefix();
  const redis = new Redis(TEST_REDIS_URL);
  const instances: ServiceProcess[] = [];
  let lock: Connection | undefined;

  /** Every read of the pets table waits from now until `release()`: a request that reads it stays in flight, holding its place. */
  const holdPets = async () => {
    lock = await createConnection({ uri: database.url });
    await lock.query('LOCK TABLES pets WRITE');
  };
  const release = async () => {
    await lock?.query('UNLOCK TABLES');
    await lock?.end();
    lock = undefined;
  };
  const heldInRedis = () => redis.zcard(concurrencyRedisKey(prefix, tracker));

  beforeAll(async () => {
    database = await createTestDatabase('mysql');
    const setup = await createTestApp({ database });
    const key = await setup.createKey({ plan: 'free', name: 'capped' });
    [secret, tracker] = [key.secret, `account:${key.accountId}`];
    await setup.client.post('/v1/pets', { name: 'Rex', categoryId: 1 });
    await setup.close();
    const env = { DATABASE_URL: database.url, REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix, RATE_LIMIT_PLANS: PLANS, BAN_AFTER_REJECTIONS: '1000' };
    // Started one after the other, each given long enough to compile on a busy machine.
    for (let i = 0; i < 2; i++) instances.push(await startServiceProcess(env, 90_000));
  }, 240_000);

  afterEach(() => release());

  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.stop()));
    await database?.drop();
    await deleteKeysUnder(prefix);
    redis.disconnect();
  });

  it(`lets exactly ${CAP} of 10 requests sent at once to both be in flight, refuses the others at once, and frees the places when they are answered`, async () => {
    await holdPets();
    const { answers, all } = sendAll(Array.from({ length: 10 }, (_, i) => instances[i % 2]), secret);
    await waitFor(async () => answers.length === 10 - CAP, 'the requests over the cap to be refused', 15_000);
    // The others are in flight, waiting on the table, each holding a place in Redis.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(answers).toHaveLength(10 - CAP);
    expect(answers.every((a) => a.status === 429 && a.code === 'rate_limited' && a.retryAfter === '1')).toBe(true);
    await expect(heldInRedis()).resolves.toBe(CAP);

    await release();
    const statuses = (await all).map((a) => a.status).sort();
    expect(statuses).toEqual([...Array(CAP).fill(200), ...Array(10 - CAP).fill(429)]);
    // A place is given back when the answer's connection closes, a moment after the client has read it.
    await waitFor(async () => (await heldInRedis()) === 0, 'every place to be given back', 5_000);

    // Every place was given back: the cap holds again, exactly, from both.
    await holdPets();
    const again = sendAll(Array.from({ length: CAP + 1 }, (_, i) => instances[i % 2]), secret);
    await waitFor(async () => again.answers.length === 1, 'the one request over the cap to be refused', 15_000);
    await release();
    expect((await again.all).map((a) => a.status).sort()).toEqual([...Array(CAP).fill(200), 429]);
  }, 60_000);

  it('gives back within seconds the places of an instance that dies while its requests run', async () => {
    const [dying, survivor] = instances;
    await holdPets();
    const held = sendAll(Array.from({ length: CAP }, () => dying), secret);
    await waitFor(async () => (await heldInRedis()) === CAP, 'the dying instance to hold every place', 15_000);
    await expect(send(survivor, secret)).resolves.toMatchObject({ status: 429, code: 'rate_limited' });

    dying.child.kill('SIGKILL');
    const killedAt = Date.now();
    await expect(held.all).rejects.toThrow();
    // Nothing gave the places back: they are held in Redis until their lease lapses.
    await expect(send(survivor, secret)).resolves.toMatchObject({ status: 429, code: 'rate_limited' });
    await release();

    let answer = await send(survivor, secret);
    while (answer.status === 429 && Date.now() - killedAt < 15_000) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      answer = await send(survivor, secret);
    }
    expect(answer.status).toBe(200);
    expect(Date.now() - killedAt).toBeLessThan(10_000);
    await waitFor(async () => (await heldInRedis()) === 0, 'the last place to be given back', 5_000);
  }, 60_000);
});
