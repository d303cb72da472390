import { randomUUID } from 'node:crypto';
import {
  canRunStack,
  compose,
  composeScript,
  createKey,
  exec,
  http,
  type HttpAnswer,
  opsHttp,
  projectLeftovers,
  run,
  STACK_URL,
  stackProject,
  useStack,
  waitFor,
} from '../support/compose-stack';

/**
 * The Galera stack (docker-compose.galera.yml over docker-compose.yml), three
 * nodes behind HAProxy, as
 * `npm run compose:up -- --galera` starts it on this machine, driven through
 * nginx on 127.0.0.1:3000 and `compose exec`, then removed by
 * `npm run compose:down`. The tests run in order and share the stack.
 */
useStack('galera');
const describeWithDocker = canRunStack() ? describe : describe.skip;

const NODES = ['galera1', 'galera2', 'galera3'];

interface Pet {
  id: number;
  name: string;
  categoryId: number;
  status: string;
}

/**
 * SQL on one node as the service's account (the compose file's local example
 * password), waiting first until the node has applied every write the cluster
 * committed before (`wsrep_sync_wait`).
 */
async function onNode(node: string, sql: string): Promise<string> {
  const statements = `SET SESSION wsrep_sync_wait = 1; ${sql}`;
  const output = await exec(node, ['env', 'MYSQL_PWD=animal', 'mariadb', '--host=127.0.0.1', '--user=animal', '--batch', '--skip-column-names', 'animal_store', '-e', statements]);
  return output.trim();
}

/** The node a new connection through HAProxy reaches, asked from inside the proxy's container with the service's account. */
async function nodeBehindProxy(): Promise<string> {
  const output = await exec('galera-proxy', ['env', 'MYSQL_PWD=animal', 'mariadb', '--host=127.0.0.1', '--user=animal', '--batch', '--skip-column-names', '-e', 'SELECT @@wsrep_node_name']);
  return output.trim();
}

/** The last output of a node's health check and Docker's verdict on it. */
async function health(node: string): Promise<{ status: string; output: string }> {
  const id = (await compose(['ps', '-q', node])).stdout.trim();
  const inspected = await run('docker', ['inspect', '--format', '{{json .State.Health}}', id]);
  const state = JSON.parse(inspected.stdout) as { Status: string; Log: Array<{ Output: string }> };
  return { status: state.Status, output: state.Log.at(-1)?.Output.trim() ?? '' };
}

/** Waits until every node's own health check reports it Synced in a primary component of three. */
async function allSynced(timeoutMs: number): Promise<void> {
  await waitFor(
    'three Synced nodes',
    async () => {
      const states = await Promise.all(NODES.map(health));
      return states.every((state, index) => state.status === 'healthy' && state.output === `${NODES[index]}: Synced, Primary component of 3 nodes, ready ON`) ? true : undefined;
    },
    timeoutMs,
  );
}

/** A create retried with its Idempotency-Key until it is acknowledged, as the README asks of clients. */
async function createAcknowledged(key: string, name: string): Promise<Pet> {
  const idempotencyKey = randomUUID();
  return waitFor(
    `the create of ${name}`,
    async () => {
      const answer = await http<Pet>('/v1/pets', { method: 'POST', key, body: { name, categoryId: 2 }, headers: { 'idempotency-key': idempotencyKey } });
      return answer.status === 201 ? answer.body : undefined;
    },
    30_000,
  );
}

describeWithDocker('the Galera compose stack on this machine', () => {
  let down = false;
  let key = '';

  beforeAll(async () => {
    await composeScript('up', 15 * 60_000);
  }, 16 * 60_000);

  afterAll(async () => {
    if (!down) await composeScript('down', 5 * 60_000);
  }, 6 * 60_000);

  it('runs three Galera nodes, each healthy once its check says Synced, and no primary or replica', async () => {
    await allSynced(60_000);
    for (const node of NODES) expect(await onNode(node, "SHOW STATUS LIKE 'wsrep_cluster_size'")).toBe('wsrep_cluster_size\t3');
    const others = await compose(['ps', '-q', 'mariadb', 'mariadb-replica']);
    expect({ status: others.status, containers: others.stdout.trim() }).toEqual({ status: 0, containers: '' });
  }, 2 * 60_000);

  it('is ready through the proxy, which sends connections to galera1, with no asynchronous replica', async () => {
    const ready = await opsHttp<{ status: string; checks: Record<string, string> }>('app1', '/readyz');
    expect({ status: ready.status, ready: ready.body.status, database: ready.body.checks.database, redis: ready.body.checks.redis }).toEqual({
      status: 200,
      ready: 'ready',
      database: 'up',
      redis: 'up',
    });
    expect(Object.keys(ready.body.checks).filter((check) => check.startsWith('replica'))).toEqual([]);
    expect(await nodeBehindProxy()).toBe('galera1');
  });

  it('creates and reads a pet through nginx, and every node holds it', async () => {
    key = await createKey(['--plan', 'pro', '--name', 'galera containers spec']);
    const create = await http<Pet>('/v1/pets', { method: 'POST', key, body: { name: 'Galera', categoryId: 2 } });
    expect(create.status).toBe(201);
    const get = await http<Pet>(`/v1/pets/${create.body.id}`, { key });
    expect({ status: get.status, body: get.body }).toEqual({ status: 200, body: create.body });
    for (const node of NODES) {
      expect({ node, row: await onNode(node, `SELECT name, category_id FROM pets WHERE id = ${create.body.id}`) }).toEqual({ node, row: 'Galera\t2' });
    }
  });

  it('serves creates while galera3, a backup, is stopped, and galera3 catches up when it rejoins', async () => {
    expect((await compose(['stop', 'galera3'], 120_000)).status).toBe(0);
    await waitFor('a cluster of two', async () => ((await onNode('galera1', "SHOW STATUS LIKE 'wsrep_cluster_size'")) === 'wsrep_cluster_size\t2' ? true : undefined), 30_000);
    const create = await http<Pet>('/v1/pets', { method: 'POST', key, body: { name: 'While galera3 was away', categoryId: 2 } });
    expect(create.status).toBe(201);

    expect((await compose(['start', 'galera3'], 120_000)).status).toBe(0);
    await allSynced(120_000);
    expect(await onNode('galera3', `SELECT name FROM pets WHERE id = ${create.body.id}`)).toBe('While galera3 was away');
  }, 5 * 60_000);

  it('moves to galera2 while galera1 is stopped, starts galera1 again into the running cluster, and moves back to it', async () => {
    expect((await compose(['stop', 'galera1'], 120_000)).status).toBe(0);
    await waitFor('the proxy to send connections to galera2', async () => ((await nodeBehindProxy()) === 'galera2' ? true : undefined), 60_000);
    const whileAway = await createAcknowledged(key, 'Created while galera1 was away');
    await onNode('galera2', "INSERT INTO pets (name, category_id) VALUES ('While galera1 was away', 2)");

    expect((await compose(['start', 'galera1'], 120_000)).status).toBe(0);
    await allSynced(120_000);
    const log = (await compose(['logs', '--no-color', 'galera1'])).stdout;
    expect(log).toMatch(/galera\d answers: joining its cluster/);
    expect(await onNode('galera1', "SELECT COUNT(*) FROM pets WHERE name = 'While galera1 was away'")).toBe('1');
    expect(await onNode('galera1', `SELECT name FROM pets WHERE id = ${whileAway.id}`)).toBe('Created while galera1 was away');
    await waitFor('the proxy to send connections to galera1 again', async () => ((await nodeBehindProxy()) === 'galera1' ? true : undefined), 60_000);

    // The proxy closed the service's connections with each move: once it is ready again, a create through nginx lands on all three.
    await waitFor(
      'both replicas ready',
      async () => ((await opsHttp('app1', '/readyz')).status === 200 && (await opsHttp('app2', '/readyz')).status === 200 ? true : undefined),
      60_000,
    );
    const created = await createAcknowledged(key, 'After galera1 came back');
    for (const node of NODES) expect(await onNode(node, `SELECT name FROM pets WHERE id = ${created.id}`)).toBe('After galera1 came back');
  }, 6 * 60_000);

  it('keeps every acknowledged create once on every node when galera1, the node in use, is killed under keyed creates and reads', async () => {
    const loadKey = await createKey(['--plan', 'enterprise', '--per-minute', '100000', '--per-day', '10000000', '--name', 'galera kill']);
    const acknowledged = new Map<string, number>();
    const refused: string[] = [];
    let readsServed = 0;
    let unavailable = 0;
    let loading = true;
    /** Success, or 503 with Retry-After: anything else is noted as refused. */
    const noted = <T>(answer: HttpAnswer<T> | undefined, what: string): HttpAnswer<T> | undefined => {
      if (answer?.status === 503 && answer.headers.get('retry-after') !== null) unavailable++;
      else if (answer === undefined || answer.status >= 300) refused.push(`${what}: ${answer?.status ?? 'no answer'}`);
      return answer;
    };
    const writer = async (index: number) => {
      for (let count = 0; loading; count++) {
        const name = `killed-${index}-${count}`;
        const idempotencyKey = randomUUID();
        for (let attempt = 0; ; attempt++) {
          const answer = noted(await http<Pet>('/v1/pets', { method: 'POST', key: loadKey, body: { name, categoryId: 2 }, headers: { 'idempotency-key': idempotencyKey } }).catch(() => undefined), `create ${name}`);
          if (answer?.status === 201) {
            acknowledged.set(name, answer.body.id);
            break;
          }
          if (attempt === 120) throw new Error(`The create ${name} was never acknowledged`);
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
      }
    };
    const reader = async () => {
      while (loading) {
        const answer = noted(await http('/v1/pets?limit=20', { key: loadKey }).catch(() => undefined), 'list');
        if (answer?.status === 200) readsServed++;
      }
    };
    const load = Promise.all([writer(0), writer(1), writer(2), reader()]);
    try {
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      expect((await compose(['kill', '-s', 'SIGKILL', 'galera1'], 60_000)).status).toBe(0);
      const killedAt = acknowledged.size;
      await waitFor('the proxy to send connections to galera2', async () => ((await nodeBehindProxy()) === 'galera2' ? true : undefined), 60_000);
      await waitFor('creates acknowledged again', async () => (acknowledged.size > killedAt + 5 ? true : undefined), 60_000);
    } finally {
      loading = false;
      await load;
    }
    process.stdout.write(`[galera] galera1 killed under load: ${acknowledged.size} creates acknowledged, ${readsServed} reads served, ${unavailable} answers 503\n`);
    expect(refused.slice(0, 10)).toEqual([]);

    expect((await compose(['start', 'galera1'], 120_000)).status).toBe(0);
    await allSynced(180_000);
    for (const node of NODES) {
      const rows = (await onNode(node, "SELECT name, id FROM pets WHERE name LIKE 'killed-%'")).split('\n').filter(Boolean);
      const stored = rows.map((row) => row.split('\t')).sort();
      expect({ node, stored }).toEqual({ node, stored: [...acknowledged].map(([name, id]) => [name, String(id)]).sort() });
    }
  }, 8 * 60_000);

  it('is removed by compose:down, containers, networks and volumes', async () => {
    const project = await stackProject();
    expect(project).not.toBe('');
    await composeScript('down', 5 * 60_000);
    down = true;
    expect(await projectLeftovers(project)).toEqual(['ps', 'network', 'volume'].map((kind) => ({ kind, status: 0, left: '' })));
    await expect(fetch(`${STACK_URL}/healthz`, { signal: AbortSignal.timeout(5_000) })).rejects.toThrow();
  }, 6 * 60_000);
});

