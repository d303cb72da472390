import { GaleraCluster, missingGaleraTools, startGaleraCluster } from './support/galera-cluster';
import { ServiceProcess, startServiceProcess } from './support/service-process';
import { createTestApp } from './support/test-app';

const missing = missingGaleraTools();
if (missing.length > 0) console.warn(`Skipping the Galera orders race: ${missing.join(', ')} missing`);

const ORDERS_PER_PET = 60;
const PETS = 3;

/**
 * Orders of one pet sent at once to two instances that write through two
 * different nodes of a Galera cluster: the nodes meet only at certification,
 * so the store decides there. One order per pet, on every node; every other
 * client is told the pet is not available (or to come back, past its
 * account's concurrency cap).
 */
(missing.length === 0 ? describe : describe.skip)('concurrent orders of one pet through two Galera nodes [galera]', () => {
  let cluster: GaleraCluster;
  let secret: string;
  let petIds: number[];
  const instances: ServiceProcess[] = [];

  beforeAll(async () => {
    cluster = await startGaleraCluster('animal_store_orders_galera_test');
    const setup = await createTestApp({ store: 'mysql', database: { url: cluster.nodeUrl(0), drop: async () => undefined } });
    try {
      secret = (await setup.createKey({ plan: 'enterprise', perMinute: 1_000_000_000, perDay: 1_000_000_000 })).secret;
      petIds = [];
      for (let i = 0; i < PETS; i++) petIds.push((await setup.client.post<{ id: number }>('/v1/pets', { name: `Rex ${i}`, categoryId: 1 })).body.id);
    } finally {
      await setup.close();
    }
    // Each instance straight to a node of its own, past any proxy, so that the two nodes race.
    for (const node of [0, 1]) instances.push(await startServiceProcess({ DATABASE_URL: cluster.nodeUrl(node) }, 60_000));
  }, 300_000);

  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.stop()));
    await cluster?.stop();
  }, 60_000);

  it(`places exactly one order per pet of ${ORDERS_PER_PET} sent at once, on every node; every other answer is 409 pet_not_available or a 429`, async () => {
    // Each instance's pool opened first, so that neither comes to the race late.
    const headers = { authorization: `Bearer ${secret}` };
    await Promise.all(instances.flatMap((instance) => Array.from({ length: 10 }, () => fetch(`${instance.url}/v1/store/orders`, { headers }).then((r) => r.text()))));
    const answers = await Promise.all(
      petIds.flatMap((petId) =>
        Array.from({ length: ORDERS_PER_PET }, async (_, i) => {
          const response = await fetch(`${instances[i % 2].url}/v1/store/orders`, {
            method: 'POST',
            body: JSON.stringify({ petId }),
            headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
          });
          return { petId, status: response.status, code: ((await response.json()) as { code?: string }).code };
        }),
      ),
    );
    const tally: Record<string, number> = {};
    for (const { status, code } of answers) tally[`${status} ${code ?? ''}`.trim()] = (tally[`${status} ${code ?? ''}`.trim()] ?? 0) + 1;
    // How often the nodes met at certification: each conflict there is a loser the store refused at commit.
    const conflicts = await Promise.all(
      [0, 1].map(async (node) =>
        Object.fromEntries(
          (await cluster.query<{ Variable_name: string; Value: string }>(node, "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_local_cert_failures', 'wsrep_local_bf_aborts')")).map(
            ({ Variable_name, Value }) => [Variable_name, Number(Value)],
          ),
        ),
      ),
    );
    console.log(`[galera] ${answers.length} orders of ${PETS} pets through 2 nodes: ${JSON.stringify(tally)}; per node ${JSON.stringify(conflicts)}`);

    for (const petId of petIds) {
      const mine = answers.filter((answer) => answer.petId === petId);
      expect(mine.filter(({ status }) => status === 201)).toHaveLength(1);
      expect(mine.filter(({ status, code }) => !(status === 201 || (status === 409 && code === 'pet_not_available') || status === 429))).toEqual([]);
    }
    for (let node = 0; node < cluster.size; node++) {
      const orders = await cluster.query<{ petId: number | string; status: string }>(node, 'SELECT pet_id AS petId, status FROM orders ORDER BY pet_id');
      expect(orders.map(({ petId, status }) => [Number(petId), status])).toEqual(petIds.map((petId) => [petId, 'placed']));
    }
  }, 120_000);
});
