import { DataSource } from 'typeorm';
import { createDataSourceOptions } from '../src/database/database-options';
import { ServiceProcess, startServiceProcess } from './support/service-process';
import { createTestApp } from './support/test-app';
import { createTestDatabase, TestDatabase, TestStore } from './support/test-database';

/**
 * How many answers each instance gives before it is killed, with every worker's
 * next request in flight: counted rather than timed, so a faster machine does
 * not run out of pets.
 */
const KILL_AFTER_ANSWERS = [120, 260, 400];
const IN_FLIGHT = 16;
// Every kill's count, and each worker's requests sent while the signal lands.
const PETS = KILL_AFTER_ANSWERS.reduce((sum, count) => sum + count, 0) + 40 * IN_FLIGHT;

const stores: TestStore[] = process.env.MYSQL_AVAILABLE === '1' ? ['mysql', 'sqlite'] : ['sqlite'];

interface Acknowledged {
  readonly orderId: number;
  readonly petId: number;
  delivered: boolean;
}

/**
 * What an operator finds in the store after an instance is killed with
 * SIGKILL while orders are placed and delivered through it: each order and
 * its pet moved together or not at all, and every answer a client read is in
 * the store.
 */
describe.each(stores)('orders through instances killed mid-stream [%s]', (store) => {
  let database: TestDatabase;
  let secret: string;
  let petIds: number[];
  const running: ServiceProcess[] = [];

  beforeAll(async () => {
    database = await createTestDatabase(store);
    const setup = await createTestApp({ database });
    try {
      secret = (await setup.createKey({ plan: 'enterprise', perMinute: 1_000_000_000, perDay: 1_000_000_000 })).secret;
      const dataSource = setup.app.get(DataSource);
      for (let i = 0; i < PETS; i += 500) {
        const rows = Array.from({ length: Math.min(500, PETS - i) }, (_, j) => `('Rex ${i + j}', 1, 'available')`);
        await dataSource.query(`INSERT INTO pets (name, category_id, status) VALUES ${rows.join(', ')}`);
      }
      petIds = ((await dataSource.query('SELECT id FROM pets ORDER BY id')) as Array<{ id: number | string }>).map(({ id }) => Number(id));
    } finally {
      await setup.close();
    }
  }, 120_000);

  afterAll(async () => {
    await Promise.all(running.map((instance) => instance.stop()));
    await database?.drop();
  });

  const call = async (instance: ServiceProcess, path: string, body?: unknown): Promise<{ status: number; body: { id?: number; status?: string } }> => {
    const response = await fetch(`${instance.url}${path}`, {
      method: 'POST',
      body: body === undefined ? undefined : JSON.stringify(body),
      headers: { authorization: `Bearer ${secret}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    });
    return { status: response.status, body: (await response.json()) as { id?: number; status?: string } };
  };

  it(`keeps every order with its pet, and every acknowledged answer, through ${KILL_AFTER_ANSWERS.length} kills`, async () => {
    const acknowledged: Acknowledged[] = [];
    const pets = [...petIds];
    for (const killAfter of KILL_AFTER_ANSWERS) {
      const victim = await startServiceProcess({ DATABASE_URL: database.url }, 60_000);
      running.push(victim);
      let alive = true;
      let answers = 0;
      const answered = () => {
        answers += 1;
        if (answers === killAfter) victim.child.kill('SIGKILL');
      };
      // Each worker orders the next pet, and delivers every other order it placed, until the instance is gone.
      const worker = async () => {
        while (alive) {
          const petId = pets.shift();
          if (petId === undefined) throw new Error('more pets needed for the stream');
          const placed = await call(victim, '/v1/store/orders', { petId }).catch(() => undefined);
          if (placed === undefined) break;
          if (placed.status !== 201) throw new Error(`order of pet ${petId}: ${placed.status} ${JSON.stringify(placed.body)}`);
          answered();
          const order: Acknowledged = { orderId: placed.body.id!, petId, delivered: false };
          acknowledged.push(order);
          if (petId % 2 === 0) continue;
          const delivered = await call(victim, `/v1/store/orders/${order.orderId}/deliver`).catch(() => undefined);
          if (delivered === undefined) break;
          if (delivered.status !== 200) throw new Error(`delivery of order ${order.orderId}: ${delivered.status} ${JSON.stringify(delivered.body)}`);
          order.delivered = true;
          answered();
        }
        alive = false;
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
      await victim.stop();
      expect(victim.child.signalCode).toBe('SIGKILL');
    }

    const dataSource = await new DataSource(createDataSourceOptions(database.url)).initialize();
    try {
      const orders: Array<{ id: number | string; petId: number | string; status: string; petStatus: string }> = await dataSource.query(
        'SELECT o.id, o.pet_id AS petId, o.status, p.status AS petStatus FROM orders o JOIN pets p ON p.id = o.pet_id',
      );
      const byId = new Map(orders.map((order) => [Number(order.id), order]));
      const figures = {
        acknowledgedPlaced: acknowledged.length,
        acknowledgedDelivered: acknowledged.filter(({ delivered }) => delivered).length,
        stored: orders.length,
        storedPlaced: orders.filter(({ status }) => status === 'placed').length,
        storedDelivered: orders.filter(({ status }) => status === 'delivered').length,
        // Committed, but the instance died before its answer was read.
        storedUnacknowledged: orders.length - acknowledged.length,
      };
      console.log(`[${store}] after ${KILL_AFTER_ANSWERS.length} SIGKILLs: ${JSON.stringify(figures)}`);
      expect(figures.acknowledgedPlaced).toBeGreaterThan(0);

      const lost = acknowledged.filter(({ orderId, petId, delivered }) => {
        const stored = byId.get(orderId);
        return !stored || Number(stored.petId) !== petId || (delivered && stored.status !== 'delivered');
      });
      expect(lost).toEqual([]);
      const mismatched = orders.filter(({ status, petStatus }) => petStatus !== { placed: 'pending', delivered: 'sold', cancelled: 'available' }[status]);
      expect(mismatched).toEqual([]);
      // A pet no order holds is as it was made.
      const [{ held }] = await dataSource.query("SELECT COUNT(*) AS held FROM pets WHERE status <> 'available'");
      expect(Number(held)).toBe(orders.length);
      const [{ counted }] = await dataSource.query('SELECT SUM(placed_orders) AS counted FROM accounts');
      expect(Number(counted)).toBe(figures.storedPlaced);
    } finally {
      await dataSource.destroy();
    }
  }, 300_000);
});
