import { DataSource, DataSourceOptions } from 'typeorm';
import { IdempotencyKeyInUseError } from '../src/idempotency/domain/idempotency.errors';
import { insert } from '../src/database/statements';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { openTransactions, Transactions } from '../src/database/transactions';
import { IdempotencyClaim, IdempotencyRecordStore } from '../src/idempotency/domain/idempotency-record.store';
import { MysqlIdempotencyRecordStore } from '../src/idempotency/infrastructure/mysql-idempotency-record.store';
import { SqliteIdempotencyRecordStore } from '../src/idempotency/infrastructure/sqlite-idempotency-record.store';
import { MigratedDataSource, openMigratedDataSource } from './support/migrated-data-source';
import { settlesWithin } from './support/settles-within';
import { reachableStores, TestStore } from './support/test-database';

const NOW = 1_000_000;
const DAY_MS = 86_400_000;
const FINGERPRINT = 'f'.repeat(64);
const OUTCOME = { status: 201, body: '{"id":1}', location: 'http://localhost/v1/pets/1' };
const OPERATION = 'POST /v1/pets';

const claimOf = (key: string, token = `token-${key}`): IdempotencyClaim => ({ scope: { apiKeyId: 1, key }, token, operation: OPERATION });

function recordStoreOn(store: TestStore, txHost: TransactionHost<TransactionalAdapterTypeOrm>): IdempotencyRecordStore {
  return store === 'mysql' ? new MysqlIdempotencyRecordStore(txHost) : new SqliteIdempotencyRecordStore(txHost);
}

/** The keys stored in the table, whatever the store keeps elsewhere. */
async function storedKeys(dataSource: DataSource): Promise<string[]> {
  return (await dataSource.query('SELECT idempotency_key AS `key` FROM idempotency_records ORDER BY idempotency_key')).map((row: { key: string }) => row.key);
}

/** The sweep of expired idempotency records, on each store. */
describe.each(reachableStores())('IdempotencyRecordStore.removeExpired [%s]', (store) => {
  let migrated: MigratedDataSource;
  let dataSource: DataSource;
  let transactions: Transactions;
  let records: IdempotencyRecordStore;

  beforeAll(async () => {
    migrated = await openMigratedDataSource(store);
    dataSource = migrated.dataSource;
    transactions = await openTransactions(dataSource);
    records = recordStoreOn(store, transactions.txHost);
  });

  afterAll(async () => {
    await transactions?.close();
    await migrated?.close();
  });

  beforeEach(() => dataSource.query('DELETE FROM idempotency_records'));

  /** Completed records, each kept until its expiry, as creates leave them: claimed and completed in one unit of work. */
  const completeAll = async (expiries: Record<string, number>) => {
    for (const [key, expiresAt] of Object.entries(expiries)) {
      const completed = transactions.unitOfWork.run(async () => (await records.claim(claimOf(key), FINGERPRINT, expiresAt)) && records.complete(claimOf(key), OUTCOME));
      await expect(completed).resolves.toBe(true);
    }
  };

  it('removes expired records oldest first, at most a batch at a time, and never one still live', async () => {
    await completeAll({ e5: NOW - 1, e1: NOW - 5, e3: NOW - 3, at: NOW, e2: NOW - 4, live: NOW + 1 });
    await records.removeExpired(NOW, 3);
    await expect(storedKeys(dataSource)).resolves.toEqual(['at', 'e5', 'live']);
    await records.removeExpired(NOW, 3);
    await expect(storedKeys(dataSource)).resolves.toEqual(['live']);
    await records.removeExpired(NOW, 3);
    await expect(storedKeys(dataSource)).resolves.toEqual(['live']);
  });

  it('forgets an expired record when asked for its key, and keeps one still live', async () => {
    await completeAll({ lapsed: NOW - 1, live: NOW + 1 });
    await records.forgetIfExpired(claimOf('lapsed').scope, NOW);
    await records.forgetIfExpired(claimOf('live').scope, NOW);
    await expect(storedKeys(dataSource)).resolves.toEqual(['live']);
  });

  if (store === 'mysql') {
    it('removes expired records without waiting for a create in progress, whose claim sits just past them in the expiry index', async () => {
      await completeAll({ old1: NOW - 2, old2: NOW - 1, done: NOW + DAY_MS });
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let claimed!: () => void;
      const hasClaimed = new Promise<void>((resolve) => (claimed = resolve));
      // As a create does: its claim the first statement of its unit of work, which stays open while the create runs.
      const create = transactions.unitOfWork.run(async () => {
        await expect(records.claim(claimOf('running'), FINGERPRINT, NOW + DAY_MS)).resolves.toBe(true);
        claimed();
        await released;
        await expect(records.complete(claimOf('running'), OUTCOME)).resolves.toBe(true);
      });
      await hasClaimed;
      const sweep = records.removeExpired(NOW, 500);
      try {
        // A sweep that failed instead raises its error from the Promise.all below.
        expect(await settlesWithin(sweep, 3_000)).toBe(true);
        await expect(storedKeys(dataSource)).resolves.toEqual(['done']);
      } finally {
        release();
        await Promise.all([create, sweep]);
      }
      await expect(storedKeys(dataSource)).resolves.toEqual(['done', 'running']);
    });
  }
});

/** Claims on MySQL, where a retry on any instance meets the running request's claim as a row lock. */
describe.each(reachableStores().filter((store) => store === 'mysql'))('MysqlIdempotencyRecordStore.claim [%s]', (store) => {
  let migrated: MigratedDataSource;
  let first: Transactions & { records: IdempotencyRecordStore };
  let retrying: Transactions & { dataSource: DataSource; records: IdempotencyRecordStore };

  beforeAll(async () => {
    migrated = await openMigratedDataSource(store);
    const firstTransactions = await openTransactions(migrated.dataSource);
    first = { ...firstTransactions, records: recordStoreOn(store, firstTransactions.txHost) };
    // Another instance, as a retry on another process meets the claim.
    const dataSource = await new DataSource({ ...migrated.dataSource.options, extra: { connectionLimit: 1 } } as DataSourceOptions).initialize();
    const transactions = await openTransactions(dataSource);
    retrying = { ...transactions, dataSource, records: recordStoreOn(store, transactions.txHost) };
  });

  afterAll(async () => {
    await first?.close();
    await retrying?.close();
    if (retrying?.dataSource.isInitialized) await retrying.dataSource.destroy();
    await migrated?.close();
  });

  /** A create that claims `key` and holds its unit open until `finish` is called with whether it commits. */
  function running(key: string): { claimed: Promise<void>; finish: (commit: boolean) => Promise<void> } {
    let claimed!: () => void;
    const hasClaimed = new Promise<void>((resolve) => (claimed = resolve));
    let end!: (commit: boolean) => void;
    const ended = new Promise<boolean>((resolve) => (end = resolve));
    const unit = first.unitOfWork.run(async () => {
      await expect(first.records.claim(claimOf(key, 'first'), FINGERPRINT, NOW + DAY_MS)).resolves.toBe(true);
      claimed();
      if (!(await ended)) throw new Error('undone');
      await expect(first.records.complete(claimOf(key, 'first'), OUTCOME)).resolves.toBe(true);
    });
    return {
      claimed: hasClaimed,
      finish: async (commit) => {
        end(commit);
        await unit.catch(() => undefined);
      },
    };
  }

  const claimAsRetry = (key: string) => retrying.unitOfWork.run(() => retrying.records.claim(claimOf(key, 'retry'), FINGERPRINT, NOW + DAY_MS));

  it('refuses at once a claim of a key another request is running, so the retry holds no connection while it runs', async () => {
    const create = running('running');
    await create.claimed;
    try {
      const retry = claimAsRetry('running');
      expect(await settlesWithin(retry, 1_000)).toBe(true);
      await expect(retry).rejects.toThrow(IdempotencyKeyInUseError);
    } finally {
      await create.finish(true);
    }
  });

  it('is refused once the running request commits, and finds its outcome', async () => {
    const create = running('committed');
    await create.claimed;
    await create.finish(true);
    await expect(claimAsRetry('committed')).resolves.toBe(false);
    await expect(retrying.records.find(claimOf('committed').scope)).resolves.toEqual({ operation: OPERATION, fingerprint: FINGERPRINT, outcome: OUTCOME, expiresAt: NOW + DAY_MS });
  });

  it('takes the key once the running request is undone: nothing of its claim is left', async () => {
    const create = running('undone');
    await create.claimed;
    await create.finish(false);
    await expect(claimAsRetry('undone')).resolves.toBe(true);
  });
});

/** Two processes on one SQLite file, each with its own connection, unit of work and claims. */
describe('SqliteIdempotencyRecordStore', () => {
  let migrated: MigratedDataSource;
  let first: Transactions & { dataSource: DataSource; records: SqliteIdempotencyRecordStore };
  let second: typeof first;

  const open = async (dataSource: DataSource) => {
    if (!dataSource.isInitialized) await dataSource.initialize();
    const transactions = await openTransactions(dataSource);
    return { ...transactions, dataSource, records: new SqliteIdempotencyRecordStore(transactions.txHost) };
  };

  beforeAll(async () => {
    migrated = await openMigratedDataSource('sqlite');
    first = await open(migrated.dataSource);
    second = await open(new DataSource(migrated.dataSource.options));
  });

  afterAll(async () => {
    await first?.close();
    await second?.close();
    if (second?.dataSource.isInitialized) await second.dataSource.destroy();
    await migrated?.close();
  });

  const petCount = async (): Promise<number> => Number((await first.dataSource.query('SELECT COUNT(*) AS n FROM pets'))[0].n);
  /** As a create does: the pet and its outcome in one unit; a lost claim undoes the unit. */
  const createIn = (side: typeof first, claim: IdempotencyClaim) =>
    side.unitOfWork.run(async () => {
      await insert(side.txHost.tx, 'INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?)', ['Rex', 1, 'available']);
      if (!(await side.records.complete(claim, OUTCOME))) throw new Error('claim lost');
    });

  it('writes nothing for a claim: the record is stored once, with its outcome, when its unit commits', async () => {
    const claim = claimOf('held');
    await expect(first.records.claim(claim, FINGERPRINT, NOW + DAY_MS)).resolves.toBe(true);
    await expect(first.records.claim(claimOf('held', 'a-retry'), FINGERPRINT, NOW + DAY_MS)).resolves.toBe(false);
    // Held until its request completes or releases it, however long it runs.
    await expect(first.records.find(claim.scope)).resolves.toEqual({ operation: OPERATION, fingerprint: FINGERPRINT, expiresAt: Number.POSITIVE_INFINITY });
    await expect(storedKeys(first.dataSource)).resolves.not.toContain('held');
    await createIn(first, claim);
    await expect(storedKeys(first.dataSource)).resolves.toContain('held');
    await expect(second.records.find(claim.scope)).resolves.toEqual({ operation: OPERATION, fingerprint: FINGERPRINT, outcome: OUTCOME, expiresAt: NOW + DAY_MS });
    await expect(second.records.claim(claimOf('held', 'another-process'), FINGERPRINT, NOW + DAY_MS)).resolves.toBe(false);
    // A claim refused for a stored record is not kept: the record is what a retry finds.
    await expect(second.records.find(claim.scope)).resolves.toMatchObject({ outcome: OUTCOME });
  });

  it('claims without beginning its unit, whose transaction then waits for another process that wrote meanwhile instead of failing', async () => {
    const claim = claimOf('written-meanwhile');
    const pets = await petCount();
    await first.unitOfWork.run(async () => {
      await expect(first.records.claim(claim, FINGERPRINT, NOW + DAY_MS)).resolves.toBe(true);
      await second.dataSource.query('INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?)', ['Written meanwhile', 1, 'available']);
      await insert(first.txHost.tx, 'INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?)', ['Rex', 1, 'available']);
      await expect(first.records.complete(claim, OUTCOME)).resolves.toBe(true);
    });
    expect(await petCount()).toBe(pets + 2);
  });

  it('lets one of two processes that run the same key at once complete it; the other unit is undone', async () => {
    const pets = await petCount();
    const [mine, theirs] = [claimOf('both', 'first-process'), claimOf('both', 'second-process')];
    await expect(first.records.claim(mine, FINGERPRINT, NOW + DAY_MS)).resolves.toBe(true);
    await expect(second.records.claim(theirs, FINGERPRINT, NOW + DAY_MS)).resolves.toBe(true);
    await createIn(first, mine);
    await expect(createIn(second, theirs)).rejects.toThrow('claim lost');
    expect(await petCount()).toBe(pets + 1);
    await expect(second.records.find(theirs.scope)).resolves.toEqual({ operation: OPERATION, fingerprint: FINGERPRINT, expiresAt: Number.POSITIVE_INFINITY });
    await second.records.release(theirs);
    await expect(second.records.find(theirs.scope)).resolves.toMatchObject({ outcome: OUTCOME });
  });

  it('frees a released claim, and keeps a claim from being released or completed by a request it is no longer', async () => {
    const claim = claimOf('released');
    await expect(first.records.claim(claim, FINGERPRINT, NOW + DAY_MS)).resolves.toBe(true);
    await first.records.release(claimOf('released', 'someone-else'));
    await expect(first.records.find(claim.scope)).resolves.not.toBeNull();
    await first.records.release(claim);
    await expect(first.records.find(claim.scope)).resolves.toBeNull();
    await expect(first.records.claim(claimOf('released', 'the-retry'), FINGERPRINT, NOW + DAY_MS)).resolves.toBe(true);
    await expect(first.unitOfWork.run(() => first.records.complete(claim, OUTCOME))).resolves.toBe(false);
  });
});
