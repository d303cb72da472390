import { DataSource } from 'typeorm';
import { createDataSourceOptions } from '../src/database/database-options';
import { runMigrations } from '../src/database/run-migrations';
import { migrationClasses, type MigrationClass } from './support/migrated-data-source';
import { createTestApp } from './support/test-app';
import { createTestDatabase, reachableStores, TestDatabase } from './support/test-database';

const ORDERS_MIGRATION = 'CreateOrders1765152000000';

/** The orders migration on a store that already holds accounts and pets, as a deployed service's does. */
describe.each(reachableStores())('orders migration [%s]', (store) => {
  let database: TestDatabase;
  let dataSource: DataSource | undefined;
  let migrations: MigrationClass[];

  beforeEach(async () => {
    database = await createTestDatabase(store);
    migrations = await migrationClasses(createDataSourceOptions(database.url));
  });

  afterEach(async () => {
    if (dataSource?.isInitialized) await dataSource.destroy();
    await database?.drop();
  });

  it('upgrades a store with accounts and pets: none holds an order, each pet can be ordered, and it undoes to the store before', async () => {
    const names = migrations.map((migration) => migration.name);
    dataSource = await new DataSource({ ...createDataSourceOptions(database.url), migrations: migrations.slice(0, names.indexOf(ORDERS_MIGRATION)) }).initialize();
    await runMigrations(dataSource);
    await dataSource.query("INSERT INTO accounts (name, plan, created_at) VALUES ('acme', 'pro', '2026-11-01 00:00:00')");
    await dataSource.query("INSERT INTO pets (name, category_id, status) VALUES ('Rex', 1, 'available'), ('Tom', 1, 'sold')");
    await dataSource.destroy();

    dataSource = await new DataSource(createDataSourceOptions(database.url)).initialize();
    expect(await runMigrations(dataSource)).toEqual(names.slice(names.indexOf(ORDERS_MIGRATION)));
    expect((await dataSource.query('SELECT name, placed_orders AS placed FROM accounts')).map(({ name, placed }: { name: string; placed: number | string }) => [name, Number(placed)])).toEqual([
      ['acme', 0],
    ]);
    expect(await dataSource.query('SELECT id FROM orders')).toEqual([]);
    await dataSource.destroy();

    const upgraded = await createTestApp({ database });
    try {
      const [rex, tom] = (await upgraded.client.get<Array<{ id: number }>>('/v1/pets')).body;
      expect((await upgraded.client.post('/v1/store/orders', { petId: rex.id })).status).toBe(201);
      expect((await upgraded.client.post<{ code: string }>('/v1/store/orders', { petId: tom.id })).body.code).toBe('pet_not_available');
    } finally {
      await upgraded.close();
    }

    dataSource = await new DataSource(createDataSourceOptions(database.url)).initialize();
    for (const _ of names.slice(names.indexOf(ORDERS_MIGRATION))) await dataSource.undoLastMigration({ transaction: 'each' });
    const tables = (await dataSource.createQueryRunner().getTables(['accounts', 'orders'])).map((table) => [table.name, table.columns.map(({ name }) => name).includes('placed_orders')]);
    expect(tables).toEqual([['accounts', false]]);
  });
});
