import { DataSource, DataSourceOptions } from 'typeorm';
import { hasOwnAccount } from '../src/auth/domain/api-key';
import { openTransactions, Transactions } from '../src/database/transactions';
import { AccountOrmEntity } from '../src/auth/infrastructure/account.orm-entity';
import { ApiKeyOrmEntity } from '../src/auth/infrastructure/api-key.orm-entity';
import { TypeOrmApiKeyRepository } from '../src/auth/infrastructure/typeorm-api-key.repository';
import { createDataSourceOptions } from '../src/database/database-options';
import { runMigrations } from '../src/database/run-migrations';
import { migrationClasses, type MigrationClass } from './support/migrated-data-source';
import { createTestDatabase, reachableStores, TestDatabase } from './support/test-database';
import { PETS_READ, PETS_WRITE } from '../src/pets/http/pet-scopes';

const ACCOUNTS_MIGRATION = 'CreateAccounts1763856000000';
const OWN_ACCOUNTS_MIGRATION = 'OwnAccounts1763942400000';
const SCOPES_MIGRATION = 'ApiKeyScopes1764028800000';

/** Migrations of keys and accounts on a store that already holds keys, as a deployed service's does, each case on a database of its own. */
describe.each(reachableStores())('key and account migrations [%s]', (store) => {
  let database: TestDatabase;
  let dataSource: DataSource | undefined;
  let transactions: Transactions | undefined;

  const open = async (options: DataSourceOptions) => {
    if (dataSource?.isInitialized) await dataSource.destroy();
    dataSource = await new DataSource(options).initialize();
    return dataSource;
  };
  const options = () => createDataSourceOptions(database.url, [AccountOrmEntity, ApiKeyOrmEntity]);
  let migrations: MigrationClass[];
  const names = () => migrations.map((migration) => migration.name);
  /** The names of `migration` and of every one after it. */
  const namesFrom = (migration: string) => names().slice(names().indexOf(migration));

  /** The store as it stood before `migration`: every earlier migration applied. */
  const openBefore = async (migration: string) => {
    const store = await open({ ...options(), migrations: migrations.slice(0, names().indexOf(migration)) });
    await runMigrations(store);
    return store;
  };
  /** The store opened by this release, which applies `migration` and every later one at start. */
  const migrateFrom = async (migration: string) => {
    const migrated = await open(options());
    expect(await runMigrations(migrated)).toEqual(namesFrom(migration));
    transactions = await openTransactions(migrated);
    return { migrated, repository: new TypeOrmApiKeyRepository(migrated.getRepository(ApiKeyOrmEntity), transactions.unitOfWork, transactions.txHost) };
  };
  /** Undoes `migration` and every later one, newest first. */
  const undoFrom = async (migrated: DataSource, migration: string) => {
    for (const _ of namesFrom(migration)) await migrated.undoLastMigration({ transaction: 'each' });
  };

  beforeEach(async () => {
    database = await createTestDatabase(store);
    migrations = await migrationClasses(options());
  });

  afterEach(async () => {
    await transactions?.close();
    transactions = undefined;
    if (dataSource?.isInitialized) await dataSource.destroy();
    await database?.drop();
  });

  it("gives every existing key an account of its own with the key's plan, and undoes to keys with plans", async () => {
    const old = await openBefore(ACCOUNTS_MIGRATION);
    const insert = 'INSERT INTO api_keys (name, key_hash, plan, per_minute, per_day, created_at) VALUES (?, ?, ?, ?, ?, ?)';
    await old.query(insert, ['shop', 'a'.repeat(64), 'pro', null, null, '2026-01-01 00:00:00']);
    await old.query(insert, ['big', 'b'.repeat(64), 'enterprise', 50, 500, '2026-01-01 00:00:00']);

    const { migrated, repository } = await migrateFrom(ACCOUNTS_MIGRATION);
    const keys = await repository.list();
    expect(keys.map(({ id, name, account, plan, customLimits }) => ({ id, name, account, plan, customLimits }))).toEqual([
      { id: 1, name: 'shop', account: { id: expect.any(Number), name: 'key-1', ownerKeyId: 1 }, plan: 'pro', customLimits: null },
      { id: 2, name: 'big', account: { id: expect.any(Number), name: 'key-2', ownerKeyId: 2 }, plan: 'enterprise', customLimits: { perMinute: 50, perDay: 500 } },
    ]);
    expect(keys[0].account.id).not.toBe(keys[1].account.id);
    const next = await repository.create({ name: '', plan: 'free', customLimits: null, scopes: [PETS_READ, PETS_WRITE], keyHash: 'c'.repeat(64), createdAt: new Date(), expiresAt: null });
    expect(next.account).toMatchObject({ name: 'key-3', ownerKeyId: 3 });

    await undoFrom(migrated, ACCOUNTS_MIGRATION);
    const rows = (await migrated.query('SELECT id, plan, per_minute, per_day FROM api_keys ORDER BY id')) as Array<Record<string, unknown>>;
    expect(rows.map((row) => [Number(row.id), row.plan, row.per_minute === null ? null : Number(row.per_minute)])).toEqual([
      [1, 'pro', null],
      [2, 'enterprise', 50],
      [3, 'free', null],
    ]);
  });

  it('makes an account named key-<id> holding that very key the key\'s own, leaves named accounts named, and undoes to the names', async () => {
    const old = await openBefore(OWN_ACCOUNTS_MIGRATION);
    const account = 'INSERT INTO accounts (name, plan, per_minute, per_day, created_at) VALUES (?, ?, NULL, NULL, ?)';
    for (const name of ['key-1', 'acme', 'key-9']) await old.query(account, [name, 'pro', '2026-01-01 00:00:00']);
    const key = 'INSERT INTO api_keys (name, key_hash, account_id, created_at) VALUES (?, ?, ?, ?)';
    // Key 1 in its own account, key 2 in a named one, key 3 joined key 1's account by its name, key 4 in an account named like another key's.
    for (const [i, accountId] of [1, 2, 1, 3].entries()) await old.query(key, [`k${i + 1}`, String(i).repeat(64), accountId, '2026-01-01 00:00:00']);

    const { migrated, repository } = await migrateFrom(OWN_ACCOUNTS_MIGRATION);
    const keys = await repository.list();
    expect(keys.map((k) => [k.id, k.account, hasOwnAccount(k)])).toEqual([
      [1, { id: 1, name: 'key-1', ownerKeyId: 1 }, true],
      [2, { id: 2, name: 'acme', ownerKeyId: null }, false],
      [3, { id: 1, name: 'key-1', ownerKeyId: 1 }, false],
      [4, { id: 3, name: 'key-9', ownerKeyId: null }, false],
    ]);
    await expect(repository.findAccount('key-1')).resolves.toMatchObject({ id: 1, ownerKeyId: 1 });
    // A new key's own account is made as such at once, with no name to rename.
    const next = await repository.create({ name: '', plan: 'free', customLimits: null, scopes: [PETS_READ, PETS_WRITE], keyHash: 'e'.repeat(64), createdAt: new Date(), expiresAt: null });
    expect(next.account).toEqual({ id: 4, name: 'key-5', ownerKeyId: 5 });
    const accounts = async (columns: string) =>
      ((await migrated.query(`SELECT ${columns} FROM accounts ORDER BY id`)) as Array<Record<string, unknown>>).map((row) =>
        Object.values(row).map((value) => (typeof value === 'string' || value === null ? value : Number(value))),
      );
    expect(await accounts('name, owner_key_id')).toEqual([
      [null, 1],
      ['acme', null],
      ['key-9', null],
      [null, 5],
    ]);
    // An account is named or owned, never both.
    await expect(migrated.query("UPDATE accounts SET name = 'both' WHERE id = 1")).rejects.toThrow(/CHECK|constraint/i);

    await undoFrom(migrated, OWN_ACCOUNTS_MIGRATION);
    expect(await accounts('name')).toEqual([['key-1'], ['acme'], ['key-9'], ['key-5']]);
  });

  it('lets every existing key keep both scopes, stores a new key\'s own, and undoes to keys without scopes', async () => {
    const old = await openBefore(SCOPES_MIGRATION);
    await old.query("INSERT INTO accounts (name, plan, created_at) VALUES ('acme', 'pro', '2026-01-01 00:00:00')");
    await old.query("INSERT INTO api_keys (name, key_hash, account_id, created_at) VALUES ('old', ?, 1, '2026-01-01 00:00:00')", ['f'.repeat(64)]);

    const { migrated, repository } = await migrateFrom(SCOPES_MIGRATION);
    const reader = await repository.create({
      name: 'reader',
      account: 'acme',
      plan: 'pro',
      customLimits: null,
      scopes: ['pets:read'],
      keyHash: '0'.repeat(64),
      createdAt: new Date(),
      expiresAt: null,
    });
    expect(reader.scopes).toEqual(['pets:read']);
    // Both pet scopes, the old default, count as every scope since the EveryScope migration.
    expect((await repository.list()).map((key) => [key.name, key.scopes])).toEqual([
      ['old', ['*']],
      ['reader', ['pets:read']],
    ]);
    await expect(repository.findByHash('f'.repeat(64))).resolves.toMatchObject({ key: { scopes: ['*'] } });

    await undoFrom(migrated, SCOPES_MIGRATION);
    const columns = (await migrated.query('SELECT * FROM api_keys WHERE id = 1')) as Array<Record<string, unknown>>;
    expect(Object.keys(columns[0])).not.toContain('scopes');
  });
});
