import { GaleraCluster, missingGaleraTools, startGaleraCluster } from './support/galera-cluster';
import { GaleraProxy, missingProxyTools, startGaleraProxy } from './support/galera-proxy';
import { isCi } from './support/local-services';
import { ServiceProcess, startServiceProcess } from './support/service-process';
import { createTestApp } from './support/test-app';
import { waitFor } from './support/wait-for';

const DATABASE = 'animal_store_galera_test';
const WRITERS = 4;
const READERS = 2;
/** Load before the kill, and after the proxy has moved back to the restarted node. */
const STEADY_MS = 4_000;
/** How long the killed node stays down before it is started again. */
const DOWN_MS = 6_000;
/** Any answer slower than this counts as none: the service must never hang on a lost node. */
const ANSWER_WITHIN_MS = 15_000;
/** The longest the proxy may take to move connections; generous, as the machine may be loaded. */
const MOVE_WITHIN_MS = 60_000;
/** How long a create may be retried with its key until it is acknowledged. */
const ACKNOWLEDGED_WITHIN_MS = 90_000;

interface Answer {
  readonly kind: 'create' | 'read';
  /** When the request was sent and answered, in ms since the load began. */
  readonly sentAt: number;
  readonly answeredAt: number;
  /** `0` when no answer came within ANSWER_WITHIN_MS, or the connection failed. */
  readonly status: number;
  readonly code?: string;
  readonly retryAfter: string | null;
  /** Set for a read of a pet whose create was acknowledged. */
  readonly acknowledgedId?: number;
}

const missing = [...missingGaleraTools(), ...missingProxyTools()];
if (missing.length > 0) {
  if (isCi()) throw new Error(`${missing.join(', ')} not found: CI needs them for the Galera failover spec (apt-get install -y galera-4 mariadb-backup socat haproxy), failing the run.`);
  process.stderr.write(`\n!!!!!!!! ${missing.join(', ')} not found: the Galera failover spec is SKIPPED. !!!!!!!!\n\n`);
}

/**
 * A client sees a success or 503 with Retry-After, or, for a create retried
 * while its first try is still in flight, the 409 that asks it to retry later:
 * never another error, an error without a retry time, or silence.
 */
function isAcceptable({ status, code, retryAfter }: Answer): boolean {
  return (status >= 200 && status < 300) || (status === 503 && retryAfter !== null) || (status === 409 && code === 'idempotency_key_in_use');
}

/**
 * What an operator sees when the Galera node HAProxy sends the service to
 * crashes: the service, a real process given the proxy's one address in
 * DATABASE_URL, serves keyed creates (each retried with its key until
 * acknowledged) and reads the whole time; the node in use is killed with
 * SIGKILL, the proxy moves the connections to the first Synced backup, and
 * back once the killed node has rejoined by state transfer and is Synced.
 */
(missing.length === 0 ? describe : describe.skip)('the service behind HAProxy on a three-node Galera cluster while the node in use is killed [galera]', () => {
  let cluster: GaleraCluster;
  let proxy: GaleraProxy;
  let service: ServiceProcess;
  let secret: string;

  beforeAll(async () => {
    cluster = await startGaleraCluster(DATABASE);
    proxy = await startGaleraProxy(cluster, DATABASE);
    const setup = await createTestApp({ store: 'mysql', database: { url: proxy.databaseUrl, drop: async () => undefined } });
    secret = (await setup.createKey({ plan: 'enterprise', name: 'galera', perMinute: 1_000_000_000, perDay: 1_000_000_000 })).secret;
    await setup.close();
    service = await startServiceProcess({ DATABASE_URL: proxy.databaseUrl }, 60_000);
  }, 300_000);

  afterAll(async () => {
    await service?.stop();
    await proxy?.stop();
    await cluster?.stop();
  }, 60_000);

  it('keeps every acknowledged create once on every node, refuses only with 503 and Retry-After, and acknowledges creates again', async () => {
    const began = Date.now();
    const clock = () => Date.now() - began;
    const answers: Answer[] = [];
    const acknowledged = new Map<string, number>();
    let loading = true;

    const send = async (kind: Answer['kind'], path: string, init: RequestInit = {}, acknowledgedId?: number): Promise<{ answer: Answer; body: unknown }> => {
      const sentAt = clock();
      let status = 0;
      let retryAfter: string | null = null;
      let body: unknown;
      try {
        const response = await fetch(`${service.url}${path}`, {
          ...init,
          headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', ...init.headers },
          signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
        });
        status = response.status;
        retryAfter = response.headers.get('retry-after');
        body = await response.json();
      } catch {
        // No answer in time, or a connection the service dropped: status stays 0, which no client may see.
      }
      const code = (body as { code?: string } | undefined)?.code;
      const answer: Answer = { kind, sentAt, answeredAt: clock(), status, code, retryAfter, acknowledgedId };
      answers.push(answer);
      return { answer, body };
    };

    /** Creates with new keys until the load stops, each retried with its key until it is acknowledged. */
    const writer = async (writerIndex: number) => {
      for (let count = 0; loading; count++) {
        const key = `galera-${writerIndex}-${count}`;
        const deadline = Date.now() + ACKNOWLEDGED_WITHIN_MS;
        for (;;) {
          const { answer, body } = await send('create', '/v1/pets', { method: 'POST', body: JSON.stringify({ name: key, categoryId: 1 }), headers: { 'idempotency-key': key } });
          if (answer.status === 201) {
            acknowledged.set(key, (body as { id: number }).id);
            break;
          }
          if (Date.now() > deadline) throw new Error(`${key} was not acknowledged within ${ACKNOWLEDGED_WITHIN_MS} ms`);
          await new Promise((resolve) => setTimeout(resolve, answer.retryAfter === null ? 200 : Number(answer.retryAfter) * 1000));
        }
      }
    };
    /** A page of the list, then one pet whose create was acknowledged, until the load stops. */
    const reader = async () => {
      while (loading) {
        await send('read', '/v1/pets?limit=20');
        const ids = [...acknowledged.values()];
        if (ids.length > 0) {
          const id = ids[Math.floor(Math.random() * ids.length)];
          await send('read', `/v1/pets/${id}`, {}, id);
        }
      }
    };
    const load = Promise.all([...Array.from({ length: WRITERS }, (_, index) => writer(index)), ...Array.from({ length: READERS }, reader)]);

    let victim = -1;
    let successor = -1;
    let killedAt = 0;
    try {
      await new Promise((resolve) => setTimeout(resolve, STEADY_MS));
      victim = await proxy.nodeBehind();
      // The first server is the active one; the two others are backups.
      expect(victim).toBe(0);

      await cluster.kill(victim);
      killedAt = clock();
      await waitFor(
        async () => {
          successor = await proxy.nodeBehind();
          return successor !== victim;
        },
        'the proxy to send connections to another node',
        MOVE_WITHIN_MS,
      );
      await new Promise((resolve) => setTimeout(resolve, DOWN_MS));

      await cluster.restart(victim);
      // Synced again, the first server takes the connections back from the backup.
      await waitFor(async () => (await proxy.nodeBehind()) === victim, 'the proxy to send connections to the restarted node again', MOVE_WITHIN_MS);
      await new Promise((resolve) => setTimeout(resolve, STEADY_MS));
    } finally {
      loading = false;
      await load;
    }

    const figures = summary(answers, acknowledged.size, killedAt);
    process.stdout.write(
      `Galera failover behind HAProxy: ${figures.acknowledged} creates acknowledged (${figures.creates} requests); node-${victim + 1} killed at ${(killedAt / 1000).toFixed(1)} s, ` +
        `node-${successor + 1} took over; writes acknowledged again ${figures.writesBackSeconds} s after the kill; ${figures.readsServed} reads served (${figures.readsServedAfterKill} after the kill); ` +
        `${figures.unavailable} answers 503; answers ${figures.byStatus}\n${proxy.output()}`,
    );

    // Only answers a client can act on.
    expect(answers.filter((answer) => !isAcceptable(answer)).slice(0, 10)).toEqual([]);
    // Creates were acknowledged again after the kill, and reads went on.
    expect(answers.some((answer) => answer.kind === 'create' && answer.status === 201 && answer.sentAt >= killedAt)).toBe(true);
    expect(figures.readsServedAfterKill).toBeGreaterThan(0);
    // No acknowledged pet was ever missing.
    expect(answers.filter((answer) => answer.acknowledgedId !== undefined && answer.status === 404)).toEqual([]);
    await expect(cluster.state(victim)).resolves.toEqual({ state: 'Synced', clusterSize: 3 });

    // Every acknowledged create is stored exactly once, with the id it was acknowledged with, on every node.
    for (let node = 0; node < cluster.size; node++) {
      const rows = await cluster.query<{ id: number | string; name: string }>(node, "SELECT id, name FROM pets WHERE name LIKE 'galera-%'");
      const idsByKey = new Map<string, number[]>();
      for (const { id, name } of rows) idsByKey.set(name, [...(idsByKey.get(name) ?? []), Number(id)]);
      const wrong = [...acknowledged].filter(([key, id]) => idsByKey.get(key)?.length !== 1 || idsByKey.get(key)![0] !== id);
      expect({ node: node + 1, stored: rows.length, wrong: wrong.slice(0, 10) }).toEqual({ node: node + 1, stored: acknowledged.size, wrong: [] });
    }
  }, 600_000);
});

/** The figures of a run, for its summary line. */
function summary(answers: readonly Answer[], acknowledged: number, killedAt: number) {
  const firstCreateAfterKill = answers.find((answer) => answer.kind === 'create' && answer.status === 201 && answer.sentAt >= killedAt);
  const readsServed = answers.filter((answer) => answer.kind === 'read' && answer.status === 200);
  return {
    acknowledged,
    creates: answers.filter((answer) => answer.kind === 'create').length,
    writesBackSeconds: firstCreateAfterKill ? ((firstCreateAfterKill.answeredAt - killedAt) / 1000).toFixed(1) : 'never',
    readsServed: readsServed.length,
    readsServedAfterKill: readsServed.filter((answer) => answer.answeredAt > killedAt).length,
    unavailable: answers.filter((answer) => answer.status === 503).length,
    byStatus: [...new Set(answers.map((answer) => answer.status))]
      .sort()
      .map((status) => `${status}×${answers.filter((answer) => answer.status === status).length}`)
      .join(' '),
  };
}
