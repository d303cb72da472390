import { randomUUID } from 'node:crypto';
import {
  canRunStack,
  compose,
  composeScript,
  createKey,
  exec,
  http,
  HttpAnswer,
  metric,
  OPS_PORT,
  opsHttp,
  projectLeftovers,
  run,
  servedBy,
  STACK_URL,
  stackProject,
  waitFor,
} from '../support/compose-stack';

/**
 * The default stack of docker-compose.yml, as `npm run compose:up` starts it
 * on this machine (stand-ins built where no image can be pulled), driven only
 * through nginx on 127.0.0.1:3000 and `compose exec`, then removed by
 * `npm run compose:down`. The tests run in order and share the stack.
 */
const describeWithDocker = canRunStack() ? describe : describe.skip;

interface Pet {
  id: number;
  name: string;
  categoryId: number;
  status: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Which app replica nginx sends a key to, from the request id of one probe in the replicas' logs. */
async function replicaOf(key: string): Promise<string> {
  const id = `containers-spec-${randomUUID()}`;
  const answer = await http('/v1/rate_limit', { key, headers: { 'x-request-id': id } });
  expect(answer.status).toBe(200);
  return waitFor('the probe in an app log', async () => (await servedBy([id])).get(id), 15_000);
}

/**
 * New keys with these limits until nginx sends at least one to each replica
 * and there are `atLeast` of them. Each key is probed once: the probes share
 * the account's own small budget for `GET /v1/rate_limit`.
 */
async function keysOnBothReplicas(limits: string[], atLeast = 2): Promise<{ keys: string[]; replicas: string[] }> {
  const keys: string[] = [];
  const replicas: string[] = [];
  while (!(replicas.includes('app1') && replicas.includes('app2') && keys.length >= atLeast)) {
    expect(keys.length).toBeLessThan(12);
    const key = await createKey(limits);
    replicas.push(await replicaOf(key));
    keys.push(key);
  }
  return { keys, replicas };
}

/** The names of the pets the load made, from every page of the list. */
async function loadPetNames(key: string): Promise<string[]> {
  const names: string[] = [];
  for (let path: string | undefined = '/v1/pets?limit=100'; path; ) {
    const page: HttpAnswer<Pet[]> = await http<Pet[]>(path, { key });
    expect(page.status).toBe(200);
    names.push(...page.body.map((pet) => pet.name).filter((name) => name.startsWith('load-')));
    const next: string | undefined = /<([^>]+)>;\s*rel="next"/.exec(page.headers.get('link') ?? '')?.[1];
    path = next === undefined ? undefined : `${new URL(next).pathname}${new URL(next).search}`;
  }
  return names;
}

/** The errors nginx logged since `since` (an ISO time), one for each time it tried a replica and could not connect. */
async function proxyConnectFailures(since: string): Promise<string[]> {
  const id = (await compose(['ps', '-q', 'proxy'])).stdout.trim();
  const logs = await run('docker', ['logs', '--since', since, id]);
  expect(logs.status).toBe(0);
  return `${logs.stdout}\n${logs.stderr}`
    .split('\n')
    .filter((line) => line.includes('[error]') && line.includes('while connecting to upstream') && !line.includes('no live upstreams'));
}

/** A size as `docker stats` prints it (`123.4MiB`), in bytes. */
function bytesOf(size: string): number {
  const match = /^([\d.]+)\s*([KMGT]i)?B$/.exec(size.trim());
  if (!match) throw new Error(`Not a size docker stats prints: "${size}"`);
  return Number(match[1]) * 1024 ** ['', 'Ki', 'Mi', 'Gi', 'Ti'].indexOf(match[2] ?? '');
}

/** What Docker says of a service's one container: its memory limit, whether it was killed for memory, its restarts, and its usage now. */
async function memoryOf(service: string): Promise<{ limit: number; enforced: number; usage: number; oomKilled: boolean; restarts: number }> {
  const id = (await compose(['ps', '-q', service])).stdout.trim();
  expect(id).not.toBe('');
  const inspect = await run('docker', ['inspect', '--format', '{{.HostConfig.Memory}} {{.State.OOMKilled}} {{.RestartCount}}', id]);
  expect(inspect.status).toBe(0);
  const [limit, oomKilled, restarts] = inspect.stdout.trim().split(' ');
  const stats = await run('docker', ['stats', '--no-stream', '--format', '{{.MemUsage}}', id]);
  expect(stats.status).toBe(0);
  const [usage, enforced] = stats.stdout.trim().split(' / ');
  return { limit: Number(limit), enforced: bytesOf(enforced), usage: bytesOf(usage), oomKilled: oomKilled === 'true', restarts: Number(restarts) };
}

describeWithDocker('the compose stack on this machine', () => {
  let project = '';
  let down = false;
  let proKey = '';
  let created: Pet;

  beforeAll(async () => {
    await composeScript('up', 15 * 60_000);
    project = await stackProject();
    expect(project).not.toBe('');
  }, 16 * 60_000);

  afterAll(async () => {
    if (project && !down) await composeScript('down', 5 * 60_000);
  }, 6 * 60_000);

  it('is ready on the operators\' port, with the database replica, and nginx publishes neither readiness nor metrics', async () => {
    const ready = await waitFor(
      'readyz with replica-1 up',
      async () => {
        const answer = await opsHttp<{ checks: Record<string, string> }>('app1', '/readyz');
        return answer.status === 200 && answer.body.checks['replica-1'] === 'up' ? answer : undefined;
      },
      60_000,
    );
    expect(ready.body).toEqual({ status: 'ready', checks: { database: 'up', redis: 'up', 'replica-1': 'up' } });
    expect((await http('/metrics')).status).toBe(404);
    expect((await http('/readyz')).status).toBe(404);
  });

  it('runs as node from an image with no compiler and no source', async () => {
    expect((await exec('app1', ['id', '-un'])).trim()).toBe('node');
    const found = await compose(['exec', '-T', 'app1', 'sh', '-c', 'command -v gcc cc g++ make python3 tsc; ls /app; find /app/dist -name "*.ts"; ls /app/node_modules/typescript 2>&1']);
    expect(found.stdout.trim().split('\n')).toEqual(['dist', 'node_modules', 'package.json', expect.stringMatching(/No such file/)]);
    // The SQLite store's addon loads from its prebuilt binary.
    const sqlite = await exec('app1', ['node', '-e', "process.stdout.write(String(new (require('better-sqlite3'))(':memory:').prepare('SELECT 41 + 1 AS x').get().x))"]);
    expect(sqlite).toBe('42');
  });

  it('makes a key with the key command inside the image', async () => {
    proKey = await createKey(['--plan', 'pro', '--name', 'containers spec']);
    const quota = await http<{ plan: string }>('/v1/rate_limit', { key: proKey });
    expect({ status: quota.status, plan: quota.body.plan }).toEqual({ status: 200, plan: 'pro' });
    expect((await http('/v1/pets', { key: 'ask_live_not-a-key' })).status).toBe(401);
  });

  it('creates, gets and lists pets through nginx', async () => {
    const create = await http<Pet>('/v1/pets', { method: 'POST', key: proKey, body: { name: 'Rex', categoryId: 3 } });
    expect(create.status).toBe(201);
    expect(create.body).toEqual({ id: expect.any(Number), name: 'Rex', categoryId: 3, status: 'available' });
    created = create.body;

    const get = await http<Pet>(`/v1/pets/${created.id}`, { key: proKey });
    expect({ status: get.status, body: get.body }).toEqual({ status: 200, body: created });
    expect(get.headers.get('deprecation')).toBe('@1795219200');

    const list = await http<Pet[]>('/v1/pets?limit=100', { key: proKey });
    expect(list.status).toBe(200);
    expect(list.body).toContainEqual(created);
    expect(list.headers.get('etag')).toBeTruthy();
  });

  it('serves from each app replica', async () => {
    const before = await Promise.all(['app1', 'app2'].map((service) => metric(service, 'http_requests_total')));
    // Unknown keys still spread over the replicas by their Authorization hash, and each is answered 401.
    const answers = await Promise.all(Array.from({ length: 20 }, (_, index) => http('/v1/pets', { key: `ask_live_spread-${index}` })));
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(401));
    const after = await Promise.all(['app1', 'app2'].map((service) => metric(service, 'http_requests_total')));
    const series = '{method="GET",route="/v1/pets",status="401"}';
    const served = after.map((samples, index) => (samples.get(series) ?? 0) - (before[index].get(series) ?? 0));
    expect(served[0] + served[1]).toBe(20);
    expect(served[0]).toBeGreaterThan(0);
    expect(served[1]).toBeGreaterThan(0);
  });

  it('holds one account to its quota exactly across both app replicas, through the shared Redis', async () => {
    const account = `containers-${randomUUID().slice(0, 8)}`;
    const perMinute = 8;
    const limits = ['--plan', 'enterprise', '--per-minute', String(perMinute), '--per-day', '100000', '--account', account];
    const { keys, replicas } = await keysOnBothReplicas(limits);
    const pair = [keys[replicas.indexOf('app1')], keys[replicas.indexOf('app2')]];

    // One fixed minute window for the whole burst: start a new one when this one is nearly over.
    const status = await http<{ windows: Array<{ name: string; reset: number }> }>('/v1/rate_limit', { key: pair[0] });
    const reset = status.body.windows.find((window) => window.name === 'minute')!.reset * 1000;
    if (reset - Date.now() < 15_000) await sleep(Math.max(0, reset - Date.now()) + 1_000);

    const statuses: number[] = [];
    for (let index = 0; index < perMinute + 6; index++) {
      statuses.push((await http('/v1/pets?limit=1', { key: pair[index % 2] })).status);
    }
    expect(statuses).toEqual([...Array(perMinute).fill(200), ...Array(6).fill(429)]);
  });

  it('reads pets from the database replica', async () => {
    const reader = await createKey(['--plan', 'pro', '--name', 'containers spec reader']);
    const before = await Promise.all(['app1', 'app2'].map((service) => metric(service, 'database_reads_total')));
    for (let index = 0; index < 5; index++) {
      const list = await http<Pet[]>('/v1/pets?limit=100', { key: reader });
      expect(list.status).toBe(200);
      expect(list.body).toContainEqual(created);
    }
    const after = await Promise.all(['app1', 'app2'].map((service) => metric(service, 'database_reads_total')));
    const delta = (target: string) =>
      after.reduce((sum, samples, index) => sum + (samples.get(`{target="${target}"}`) ?? 0) - (before[index].get(`{target="${target}"}`) ?? 0), 0);
    expect({ replica: delta('replica'), primary: delta('primary') }).toEqual({ replica: 5, primary: 0 });
  });

  it('serves a load from each app container within the memory limit the compose file gives it', async () => {
    const limits = ['--plan', 'enterprise', '--per-minute', '100000', '--per-day', '10000000'];
    const { keys } = await keysOnBothReplicas(limits, 4);
    const refused: string[] = [];
    let answered = 0;
    const until = Date.now() + 20_000;
    // Pages, gets and creates, three in flight per key, so that each replica's heap grows as it does under load.
    const lane = async (key: string, name: string) => {
      for (let n = 0; Date.now() < until; n++) {
        const answer =
          n % 3 === 2
            ? await http('/v1/pets', { method: 'POST', key, body: { name: `memory-${name}-${n}`, categoryId: 2 } })
            : await http(n % 3 === 0 ? '/v1/pets?limit=20' : `/v1/pets/${created.id}`, { key });
        if (answer.status === 200 || answer.status === 201) answered++;
        else refused.push(`${answer.status} ${JSON.stringify(answer.body)}`);
      }
    };
    await Promise.all(keys.flatMap((key, index) => [0, 1, 2].map((slot) => lane(key, `${index}-${slot}`))));
    expect(refused).toEqual([]);
    expect(answered).toBeGreaterThan(500);

    for (const service of ['app1', 'app2']) {
      const memory = await memoryOf(service);
      // The limit is set, and the engine enforces it rather than discarding it.
      expect(memory.limit).toBeGreaterThan(0);
      expect({ service, enforced: memory.enforced }).toEqual({ service, enforced: memory.limit });
      expect({ service, oomKilled: memory.oomKilled, restarts: memory.restarts }).toEqual({ service, oomKilled: false, restarts: 0 });
      expect({ service, usageMb: Math.round(memory.usage / 2 ** 20), under: memory.usage < 0.9 * memory.limit }).toEqual({ service, usageMb: expect.any(Number), under: true });
      // Node reads the container's bound and sizes V8's heap within it.
      const heapLimit = Number(await exec(service, ['node', '-e', "process.stdout.write(String(require('v8').getHeapStatistics().heap_size_limit))"]));
      expect(heapLimit).toBeGreaterThan(0);
      expect(heapLimit).toBeLessThan(memory.limit);
    }
  });

  it('loses no read and no acknowledged create while app1 stops under load, then leaves app1 out, and answers 503 when no replica is left', async () => {
    const limits = ['--plan', 'enterprise', '--per-minute', '100000', '--per-day', '10000000'];
    const { keys, replicas } = await keysOnBothReplicas(limits, 4);
    const app1Key = keys[replicas.indexOf('app1')];

    const failedReads: string[] = [];
    const acknowledged = new Map<string, Pet>();
    let reads = 0;
    let loading = true;
    const read = async (key: string) => {
      const path = reads % 2 === 0 ? `/v1/pets/${created.id}` : '/v1/pets?limit=20';
      reads++;
      const answer = await http(path, { key }).catch((error: Error) => ({ status: 0, body: error.message }));
      if (answer.status !== 200) failedReads.push(`${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    };
    // A client that retries a create with its Idempotency-Key until it is acknowledged, as the README asks.
    const createUntilAcknowledged = async (key: string, name: string) => {
      const idempotencyKey = randomUUID();
      for (let attempt = 0; attempt < 60; attempt++) {
        const answer = await http<Pet>('/v1/pets', { method: 'POST', key, body: { name, categoryId: 1 }, headers: { 'idempotency-key': idempotencyKey } }).catch(() => undefined);
        if (answer?.status === 201) {
          acknowledged.set(idempotencyKey, answer.body);
          return;
        }
        await sleep(250);
      }
      throw new Error(`The create ${name} was never acknowledged`);
    };
    const worker = async (key: string, index: number) => {
      for (let round = 0; loading; round++) {
        await read(key);
        if (round % 3 === 0) await createUntilAcknowledged(key, `load-${index}-${round}`);
      }
    };
    const load = Promise.all(keys.map((key, index) => worker(key, index)));

    await sleep(3_000);
    const stoppedAt = new Date().toISOString();
    const stop = await compose(['stop', 'app1'], 60_000);
    expect(stop.status).toBe(0);
    await sleep(5_000);
    loading = false;
    await load;

    expect(failedReads).toEqual([]);
    expect(reads).toBeGreaterThan(50);
    expect(acknowledged.size).toBeGreaterThan(5);
    const ids = [...acknowledged.values()].map((pet) => pet.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const pet of acknowledged.values()) {
      const get = await http<Pet>(`/v1/pets/${pet.id}`, { key: keys[0] });
      expect({ status: get.status, body: get.body }).toEqual({ status: 200, body: pet });
    }
    // Each create was stored once, however often it was retried: its name stands once in the whole list.
    const stored = await waitFor(
      'every acknowledged create in the list',
      async () => {
        const names = await loadPetNames(keys[0]);
        return [...acknowledged.values()].every((pet) => names.includes(pet.name)) ? names : undefined;
      },
      15_000,
    );
    expect(stored.sort()).toEqual([...acknowledged.values()].map((pet) => pet.name).sort());

    // nginx left the stopped app1 out rather than trying it first for each request of its keys.
    expect((await proxyConnectFailures(stoppedAt)).length).toBeGreaterThan(0);
    const readsFrom = new Date().toISOString();
    for (let index = 0; index < 40; index++) expect((await http(`/v1/pets/${created.id}`, { key: app1Key })).status).toBe(200);
    const triedApp1 = (await proxyConnectFailures(readsFrom)).length;
    process.stdout.write(`[stack] app1 stopped under load: ${reads} reads served, ${acknowledged.size} creates acknowledged; then 40 reads of its key tried it ${triedApp1} times\n`);
    expect(triedApp1).toBeLessThan(10);

    // With no replica left, nginx answers in the service's Error shape, with when to come back.
    expect((await compose(['stop', 'app2'], 60_000)).status).toBe(0);
    const none = await http(`/v1/pets/${created.id}`, { key: app1Key, headers: { 'x-request-id': 'containers-spec-no-replica' } });
    expect({
      status: none.status,
      retryAfter: none.headers.get('retry-after'),
      type: none.headers.get('content-type'),
      requestId: none.headers.get('x-request-id'),
      cacheControl: none.headers.get('cache-control'),
    }).toEqual({ status: 503, retryAfter: '2', type: 'application/json', requestId: 'containers-spec-no-replica', cacheControl: 'private' });
    expect(none.body).toEqual({ code: 'service_unavailable', message: expect.stringContaining('Retry-After'), status: 503 });

    expect((await compose(['start', 'app1', 'app2'])).status).toBe(0);
    for (const service of ['app1', 'app2']) {
      await waitFor(
        `${service} healthy again`,
        async () => ((await exec(service, ['node', '-e', `fetch('http://127.0.0.1:${OPS_PORT}/readyz').then((r) => process.exit(r.ok ? 0 : 1))`])) === '' ? true : undefined),
        60_000,
      );
    }
    await waitFor('reads through nginx again', async () => ((await http(`/v1/pets/${created.id}`, { key: app1Key })).status === 200 ? true : undefined), 15_000);
  }, 5 * 60_000);

  it('is removed by compose:down, containers, networks and volumes', async () => {
    await composeScript('down', 5 * 60_000);
    down = true;
    expect(await projectLeftovers(project)).toEqual(['ps', 'network', 'volume'].map((kind) => ({ kind, status: 0, left: '' })));
    await expect(fetch(`${STACK_URL}/healthz`, { signal: AbortSignal.timeout(5_000) })).rejects.toThrow();
  });
});
