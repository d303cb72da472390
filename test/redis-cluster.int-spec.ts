import { Cluster } from 'ioredis';
import { redisKey, RedisRateLimitStore } from '../src/rate-limit/infrastructure/redis-rate-limit.store';
import { currentTag, expectConditionalsToSpendNothing } from './support/conditional-load';
import { isClusterToolsAvailable, LocalRedisCluster, startRedisCluster } from './support/redis-cluster';
import { ServiceProcess, startServiceProcess } from './support/service-process';
import { createTestDatabase, TestDatabase } from './support/test-database';
import { createTestApp, TestApp } from './support/test-app';
import { randomKeyPrefix } from './support/test-redis';

const servicesUp = isClusterToolsAvailable() && process.env.MYSQL_AVAILABLE === '1';

interface Key {
  readonly tracker: string;
  readonly secret: string;
}

interface Answer {
  readonly status: number;
  readonly code?: string;
  readonly limit: string | null;
  readonly retryAfter: string | null;
}

/** A request that counts as hanging when it has no answer within five seconds. */
async function send(instance: ServiceProcess, key: Key): Promise<Answer> {
  const response = await fetch(`${instance.url}/v1/pets?limit=1`, {
    headers: { authorization: `Bearer ${key.secret}` },
    signal: AbortSignal.timeout(5_000),
  });
  const body = (await response.json()) as { code?: string };
  return { status: response.status, code: body.code, limit: response.headers.get('x-ratelimit-limit'), retryAfter: response.headers.get('retry-after') };
}

function concurrently(instances: ServiceProcess[], key: Key, count: number): Promise<Answer[]> {
  return Promise.all(Array.from({ length: count }, (_, i) => send(instances[i % instances.length], key)));
}

(servicesUp ? describe : describe.skip)('limits on a Redis Cluster shared by two instances [redis cluster + mysql]', () => {
  let cluster: LocalRedisCluster | undefined;
  let client: Cluster | undefined;
  let database: TestDatabase | undefined;
  let setup: TestApp | undefined;
  const prefix = randomKeyPrefix();
  const instances: ServiceProcess[] = [];

  const newKey = async (plan: 'free' | 'enterprise'): Promise<Key> => {
    const limits = plan === 'enterprise' ? { perMinute: 1_000_000, perDay: 100_000_000 } : {};
    const { accountId, secret } = await (setup as TestApp).createKey({ plan, name: 'cluster', ...limits });
    return { tracker: `account:${accountId}`, secret };
  };
  const mastersOf = async (key: Key) => (cluster as LocalRedisCluster).ownersOf(redisKey(prefix, key.tracker));
  const countInCluster = async (key: Key): Promise<number> => Number((await client?.hget(redisKey(prefix, key.tracker), 'minute:count')) ?? 0);

  /** A key of `plan` whose counters live on `master`: keys are spread over the slots by their id. */
  const keyOnMaster = async (plan: 'free' | 'enterprise', master: number): Promise<Key> => {
    for (let tries = 0; tries < 60; tries++) {
      const key = await newKey(plan);
      if ((await mastersOf(key)).master === master) return key;
    }
    throw new Error(`No ${plan} key landed on the master at ${master}`);
  };

  beforeAll(async () => {
    cluster = await startRedisCluster();
    client = new Cluster(cluster.ports.map((port) => ({ host: '127.0.0.1', port })), { redisOptions: { maxRetriesPerRequest: 1 } });
    database = await createTestDatabase('mysql');
    setup = await createTestApp({ database });
    // Each burst is in flight at once: the concurrency cap is not what this tests.
    const env = { DATABASE_URL: database.url, REDIS_CLUSTER_NODES: cluster.seeds, REDIS_KEY_PREFIX: prefix, RATE_LIMIT_PLANS: '{"free":{"concurrency":1060}}' };
    instances.push(...(await Promise.all([startServiceProcess(env), startServiceProcess(env)])));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.stop()));
    await setup?.close();
    await database?.drop();
    client?.disconnect();
    await cluster?.stop();
  }, 60_000);

  it('reports the cluster in /readyz', async () => {
    for (const instance of instances) {
      const response = await fetch(`${instance.url}/readyz`);
      expect({ status: response.status, body: await response.json() }).toEqual({
        status: 200,
        body: { status: 'ready', checks: { database: 'up', 'redis-cluster': 'up' } },
      });
    }
  });

  it('connects without a moment of degraded counting: twenty stores opened one after another each answer from the cluster at once', async () => {
    const warnings: string[] = [];
    const logger = { warn: (message: string) => warnings.push(message), log: () => undefined };
    const nodes = (cluster as LocalRedisCluster).ports.map((port) => ({ host: '127.0.0.1', port }));
    for (let i = 0; i < 20; i++) {
      const store = new RedisRateLimitStore({ clusterNodes: nodes, logger, keyPrefix: prefix });
      try {
        const deadline = Date.now() + 5_000;
        while (store.degraded && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
        expect(store.degraded).toBe(false);
      } finally {
        await store.close();
      }
    }
    expect(warnings).toEqual([]);
  }, 60_000);

  it('accepts exactly 60 of 1,000 concurrent requests for a 60-per-minute key sent to both', async () => {
    const key = await newKey('free');
    const answers = await concurrently(instances, key, 1_000);
    const accepted = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 429);
    expect({ accepted: accepted.length, refused: refused.length }).toEqual({ accepted: 60, refused: 940 });
    expect(refused.every((a) => (a.code === 'rate_limited' || a.code === 'api_key_banned') && Number(a.retryAfter) >= 1)).toBe(true);
    expect(new Set(answers.map((a) => a.limit))).toEqual(new Set(['60']));
    await expect(countInCluster(key)).resolves.toBe(60);
    // Every request was judged in the cluster: none fell back to an instance's memory.
    expect(instances.map((instance) => instance.output()).join('\n')).not.toMatch(/Redis unavailable/);
  }, 60_000);

  it('leaves the plan untouched by 400 concurrent 304s sent with 59 plain requests, which a 60th exhausts exactly', async () => {
    for (const name of ['Rex', 'Tom', 'Kit']) await (setup as TestApp).client.post('/v1/pets', { name, categoryId: 1 });
    const [key, other] = [await newKey('free'), await newKey('enterprise')];
    await expectConditionalsToSpendNothing(instances, key.secret, await currentTag(instances, other.secret));
    await expect(countInCluster(key)).resolves.toBe(60);
  }, 60_000);

  it('keeps answering while a master is lost, then counts in the cluster again by itself', async () => {
    const load = await newKey('enterprise');
    const { master } = await mastersOf(load);
    const probe = await keyOnMaster('enterprise', master);
    const exact = await keyOnMaster('free', master);

    // Steady load on the doomed master's slots through both instances, before, during and after the loss.
    const answers: Answer[] = [];
    const failures: string[] = [];
    let loading = true;
    const loops = Array.from({ length: 8 }, async (_, i) => {
      while (loading) {
        await send(instances[i % 2], load).then(
          (answer) => answers.push(answer),
          (error: Error) => failures.push(error.message),
        );
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    (cluster as LocalRedisCluster).kill(master);

    // Each instance counts in the cluster again once a request through it shows up in the promoted replica's hash.
    const deadline = Date.now() + 45_000;
    for (const instance of instances) {
      for (;;) {
        if (Date.now() > deadline) throw new Error(`Counting did not resume in the cluster:\n${instance.output()}`);
        const before = await countInCluster(probe).catch(() => -1);
        const answer = await send(instance, probe);
        expect(answer.status).toBe(200);
        if (before >= 0 && (await countInCluster(probe).catch(() => -1)) === before + 1) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    loading = false;
    await Promise.all(loops);

    expect(failures).toEqual([]);
    expect(answers.length).toBeGreaterThan(0);
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    // One shared, exact limit again on the promoted master.
    const after = await concurrently(instances, exact, 200);
    expect(after.filter((a) => a.status === 200)).toHaveLength(60);
    expect(after.filter((a) => a.status === 429)).toHaveLength(140);
    const output = instances.map((instance) => instance.output()).join('\n');
    expect(output).toMatch(/Redis unavailable/);
  }, 120_000);
});
