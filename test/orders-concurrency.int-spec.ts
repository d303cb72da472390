import { DataSource } from 'typeorm';
import { createDataSourceOptions } from '../src/database/database-options';
import { ServiceProcess, startServiceProcess } from './support/service-process';
import { createTestApp } from './support/test-app';
import { createTestDatabase, TestDatabase, TestStore } from './support/test-database';

/** Orders sent at once for each pet, half to each instance, from keys of three accounts. */
const ORDERS_PER_PET = 60;
const PETS = 3;
const ACCOUNTS = 3;

const stores: TestStore[] = process.env.MYSQL_AVAILABLE === '1' ? ['mysql', 'sqlite'] : ['sqlite'];

interface Answer {
  readonly petId: number;
  readonly status: number;
  readonly code?: string;
  readonly orderId?: number;
}

/**
 * Many clients ordering the same pet at once through two service processes on
 * one store: the store, not either process, decides the one winner; every
 * other client is told the pet is not available (or, past its account's
 * concurrency cap, to come back later), never a 500 and never a second order.
 */
describe.each(stores)('concurrent orders of one pet through two instances [%s]', (store) => {
  let database: TestDatabase;
  let secrets: string[];
  let petIds: number[];
  const instances: ServiceProcess[] = [];

  beforeAll(async () => {
    database = await createTestDatabase(store);
    const setup = await createTestApp({ database });
    try {
      secrets = [];
      for (let i = 0; i < ACCOUNTS; i++) secrets.push((await setup.createKey({ plan: 'enterprise', perMinute: 1_000_000, perDay: 1_000_000_000 })).secret);
      petIds = [];
      for (let i = 0; i < PETS; i++) petIds.push((await setup.client.post<{ id: number }>('/v1/pets', { name: `Rex ${i}`, categoryId: 1 })).body.id);
    } finally {
      await setup.close();
    }
    // One after the other: the first applies the migrations.
    const env = { DATABASE_URL: database.url };
    instances.push(await startServiceProcess(env, 60_000));
    instances.push(await startServiceProcess(env, 60_000));
  }, 180_000);

  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.stop()));
    await database?.drop();
  });

  it(`places exactly one order per pet of ${ORDERS_PER_PET} sent at once; every other answer is 409 pet_not_available or a 429`, async () => {
    const requests = petIds.flatMap((petId) => Array.from({ length: ORDERS_PER_PET }, (_, i) => ({ petId, i })));
    const answers: Answer[] = await Promise.all(
      requests.map(async ({ petId, i }) => {
        const response = await fetch(`${instances[i % 2].url}/v1/store/orders`, {
          method: 'POST',
          body: JSON.stringify({ petId }),
          headers: { authorization: `Bearer ${secrets[i % ACCOUNTS]}`, 'content-type': 'application/json' },
        });
        const body = (await response.json()) as { id?: number; code?: string };
        return { petId, status: response.status, code: body.code, orderId: response.status === 201 ? body.id : undefined };
      }),
    );

    const tally: Record<string, number> = {};
    for (const { status, code } of answers) tally[`${status} ${code ?? ''}`.trim()] = (tally[`${status} ${code ?? ''}`.trim()] ?? 0) + 1;
    // The figures of the run, for the record.
    console.log(`[${store}] ${answers.length} orders of ${PETS} pets through 2 instances: ${JSON.stringify(tally)}`);

    for (const petId of petIds) {
      const mine = answers.filter((answer) => answer.petId === petId);
      expect(mine.filter(({ status }) => status === 201)).toHaveLength(1);
      const others = mine.filter(({ status, code }) => !(status === 201 || (status === 409 && code === 'pet_not_available') || status === 429));
      expect(others).toEqual([]);
    }

    const dataSource = await new DataSource(createDataSourceOptions(database.url)).initialize();
    try {
      const orders: Array<{ id: number | string; petId: number | string; status: string }> = await dataSource.query('SELECT id, pet_id AS petId, status FROM orders');
      expect(orders.map(({ petId, status }) => [Number(petId), status]).sort()).toEqual(petIds.map((petId) => [petId, 'placed']).sort());
      const won = answers.filter(({ status }) => status === 201).map(({ orderId }) => orderId).sort();
      expect(orders.map(({ id }) => Number(id)).sort()).toEqual(won);
      const pets: Array<{ status: string }> = await dataSource.query(`SELECT status FROM pets WHERE id IN (${petIds.join(', ')})`);
      expect(pets.map(({ status }) => status)).toEqual(petIds.map(() => 'pending'));
      const [{ placed }] = await dataSource.query('SELECT SUM(placed_orders) AS placed FROM accounts');
      expect(Number(placed)).toBe(PETS);
    } finally {
      await dataSource.destroy();
    }
  }, 120_000);
});
