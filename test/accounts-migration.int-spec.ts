import { DataSource, DataSourceOptions } from 'typeorm';
import { createDataSourceOptions } from '../src/database/database-options';
import { runMigrations } from '../src/database/run-migrations';
import { TypeOrmUnitOfWork } from '../src/database/typeorm-unit-of-work';
import { AccountOrmEntity } from '../src/auth/infrastructure/account.orm-entity';
import { ApiKeyOrmEntity } from '../src/auth/infrastructure/api-key.orm-entity';
import { TypeOrmApiKeyRepository } from '../src/auth/infrastructure/typeorm-api-key.repository';
import { createTestDatabase, TestDatabase, TestStore } from './support/test-database';

const ACCOUNTS_MIGRATION = 'CreateAccounts1763856000000';
const stores: TestStore[] = process.env.MYSQL_AVAILABLE === '1' ? ['sqlite', 'mysql'] : ['sqlite'];

/** The accounts migration on a store that already holds keys, as a deployed service's does. */
describe.each(stores)('accounts migration [%s]', (store) => {
  let database: TestDatabase;
  let dataSource: DataSource | undefined;

  const open = async (options: DataSourceOptions) => {
    dataSource = await new DataSource(options).initialize();
    return dataSource;
  };

  beforeAll(async () => {
    database = await createTestDatabase(store);
  });

  afterAll(async () => {
    if (dataSource?.isInitialized) await dataSource.destroy();
    await database?.drop();
  });

  it("gives every existing key an account of its own with the key's plan, and undoes to keys with plans", async () => {
    // The store as the release before accounts left it, then as the release that brought them.
    const all = createDataSourceOptions(database.url, [AccountOrmEntity, ApiKeyOrmEntity]);
    const migrations = all.migrations as Array<{ name: string }>;
    const upTo = migrations.findIndex((m) => m.name === ACCOUNTS_MIGRATION);
    const before = { ...all, migrations: migrations.slice(0, upTo) };
    const options = { ...all, migrations: migrations.slice(0, upTo + 1) } as DataSourceOptions;
    const old = await open(before as DataSourceOptions);
    await runMigrations(old);
    const insert = 'INSERT INTO api_keys (name, key_hash, plan, per_minute, per_day, created_at) VALUES (?, ?, ?, ?, ?, ?)';
    await old.query(insert, ['shop', 'a'.repeat(64), 'pro', null, null, '2026-01-01 00:00:00']);
    await old.query(insert, ['big', 'b'.repeat(64), 'enterprise', 50, 500, '2026-01-01 00:00:00']);
    await old.destroy();

    const migrated = await open(options);
    expect(await runMigrations(migrated)).toEqual([ACCOUNTS_MIGRATION]);
    const repository = new TypeOrmApiKeyRepository(migrated.getRepository(ApiKeyOrmEntity), new TypeOrmUnitOfWork(migrated));
    const keys = await repository.list();
    expect(keys.map(({ id, name, account, plan, customLimits }) => ({ id, name, accountName: account.name, plan, customLimits }))).toEqual([
      { id: 1, name: 'shop', accountName: 'key-1', plan: 'pro', customLimits: null },
      { id: 2, name: 'big', accountName: 'key-2', plan: 'enterprise', customLimits: { perMinute: 50, perDay: 500 } },
    ]);
    expect(keys[0].account.id).not.toBe(keys[1].account.id);
    const next = await repository.create({ name: '', plan: 'free', customLimits: null, keyHash: 'c'.repeat(64), createdAt: new Date(), expiresAt: null });
    expect(next.account.name).toBe('key-3');

    await migrated.undoLastMigration({ transaction: 'each' });
    const rows = (await migrated.query('SELECT id, plan, per_minute, per_day FROM api_keys ORDER BY id')) as Array<Record<string, unknown>>;
    expect(rows.map((row) => [Number(row.id), row.plan, row.per_minute === null ? null : Number(row.per_minute)])).toEqual([
      [1, 'pro', null],
      [2, 'enterprise', 50],
      [3, 'free', null],
    ]);
  });
});
