import { DataSource } from 'typeorm';
import { TypeOrmUnitOfWork } from '../src/database/typeorm-unit-of-work';
import { IdempotencyClaim, IdempotencyRecordStore } from '../src/idempotency/domain/idempotency-record.store';
import { MysqlIdempotencyRecordStore } from '../src/idempotency/infrastructure/mysql-idempotency-record.store';
import { SqliteIdempotencyRecordStore } from '../src/idempotency/infrastructure/sqlite-idempotency-record.store';
import { MigratedDataSource, openMigratedDataSource } from './support/migrated-data-source';
import { reachableStores, TestStore } from './support/test-database';

const NOW = 1_000_000;
const DAY_MS = 86_400_000;
const FINGERPRINT = 'f'.repeat(64);
const OUTCOME = { status: 201, body: '{"id":1}' };

const claimOf = (key: string, token = `token-${key}`): IdempotencyClaim => ({ scope: { apiKeyId: 1, key }, token });

function recordStoreOn(store: TestStore, unitOfWork: TypeOrmUnitOfWork): IdempotencyRecordStore {
  return store === 'mysql' ? new MysqlIdempotencyRecordStore(unitOfWork) : new SqliteIdempotencyRecordStore(unitOfWork);
}

/** The keys stored in the table, whatever the store keeps elsewhere. */
async function storedKeys(dataSource: DataSource): Promise<string[]> {
  return (await dataSource.query('SELECT idempotency_key AS `key` FROM idempotency_records ORDER BY idempotency_key')).map((row: { key: string }) => row.key);
}

/** The sweep of expired idempotency records, on each store. */
describe.each(reachableStores())('IdempotencyRecordStore.removeExpired [%s]', (store) => {
  let migrated: MigratedDataSource;
  let dataSource: DataSource;
  let unitOfWork: TypeOrmUnitOfWork;
  let records: IdempotencyRecordStore;

  beforeAll(async () => {
    migrated = await openMigratedDataSource(store);
    dataSource = migrated.dataSource;
    unitOfWork = new TypeOrmUnitOfWork(dataSource);
    records = recordStoreOn(store, unitOfWork);
  });

  afterAll(() => migrated?.close());

  beforeEach(() => dataSource.query('DELETE FROM idempotency_records'));

  /** Completed records, each kept until its expiry, as creates leave them. */
  const completeAll = async (expiries: Record<string, number>) => {
    for (const [key, expiresAt] of Object.entries(expiries)) {
      await expect(records.claim(claimOf(key), FINGERPRINT, NOW + 10_000)).resolves.toBe(true);
      await expect(unitOfWork.run(() => records.complete(claimOf(key), OUTCOME, expiresAt))).resolves.toBe(true);
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

  it('forgets a claim whose lease ran out, and keeps one still leased', async () => {
    await expect(records.claim(claimOf('lapsed'), FINGERPRINT, NOW - 1)).resolves.toBe(true);
    await expect(records.claim(claimOf('leased'), FINGERPRINT, NOW + 1)).resolves.toBe(true);
    await records.removeExpired(NOW, 500);
    await expect(records.find(claimOf('lapsed').scope)).resolves.toBeNull();
    await expect(records.find(claimOf('leased').scope)).resolves.toEqual({ fingerprint: FINGERPRINT, expiresAt: NOW + 1 });
  });

  if (store === 'mysql') {
    it('removes expired records without waiting for a create in progress, whose claim sits just past the expired ones', async () => {
      const claimAll = async (expiries: Record<string, number>) => {
        for (const [key, expiresAt] of Object.entries(expiries)) await expect(records.claim(claimOf(key), FINGERPRINT, expiresAt)).resolves.toBe(true);
      };
      await claimAll({ old1: NOW - 2, old2: NOW - 1, running: NOW + 3_000, done: NOW + DAY_MS });
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let completed!: () => void;
      const hasCompleted = new Promise<void>((resolve) => (completed = resolve));
      // As a create does: its outcome stored in its unit of work, which stays open until the create's response is ready.
      const create = unitOfWork.run(async () => {
        await expect(records.complete(claimOf('running'), OUTCOME, NOW + DAY_MS)).resolves.toBe(true);
        completed();
        await released;
      });
      await hasCompleted;
      const sweep = records.removeExpired(NOW, 500);
      const waited = new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), 3_000).unref());
      try {
        await expect(Promise.race([sweep.then(() => 'done'), waited])).resolves.toBe('done');
        await expect(storedKeys(dataSource)).resolves.toEqual(['done', 'running']);
      } finally {
        release();
        await Promise.all([create, sweep]);
      }
    });
  }
});

/** Two processes on one SQLite file, each with its own connection, unit of work and claims. */
describe('SqliteIdempotencyRecordStore', () => {
  let migrated: MigratedDataSource;
  let first: { dataSource: DataSource; unitOfWork: TypeOrmUnitOfWork; records: SqliteIdempotencyRecordStore };
  let second: typeof first;

  const open = async (dataSource: DataSource) => {
    if (!dataSource.isInitialized) await dataSource.initialize();
    const unitOfWork = new TypeOrmUnitOfWork(dataSource);
    return { dataSource, unitOfWork, records: new SqliteIdempotencyRecordStore(unitOfWork) };
  };

  beforeAll(async () => {
    migrated = await openMigratedDataSource('sqlite');
    first = await open(migrated.dataSource);
    second = await open(new DataSource(migrated.dataSource.options));
  });

  afterAll(async () => {
    if (second?.dataSource.isInitialized) await second.dataSource.destroy();
    await migrated?.close();
  });

  const petCount = async (): Promise<number> => Number((await first.dataSource.query('SELECT COUNT(*) AS n FROM pets'))[0].n);
  /** As a create does: the pet and its outcome in one unit; a lost claim undoes the unit. */
  const createIn = (side: typeof first, claim: IdempotencyClaim) =>
    side.unitOfWork.run(async () => {
      await side.unitOfWork.insert('INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?)', ['Rex', 1, 'available']);
      if (!(await side.records.complete(claim, OUTCOME, NOW + DAY_MS))) throw new Error('claim lost');
    });

  it('writes nothing for a claim: the record is stored once, with its outcome, when its unit commits', async () => {
    const claim = claimOf('held');
    await expect(first.records.claim(claim, FINGERPRINT, NOW + 10_000)).resolves.toBe(true);
    await expect(first.records.claim(claimOf('held', 'a-retry'), FINGERPRINT, NOW + 10_000)).resolves.toBe(false);
    await expect(first.records.find(claim.scope)).resolves.toEqual({ fingerprint: FINGERPRINT, expiresAt: NOW + 10_000 });
    await expect(storedKeys(first.dataSource)).resolves.not.toContain('held');
    await createIn(first, claim);
    await expect(storedKeys(first.dataSource)).resolves.toContain('held');
    await expect(second.records.find(claim.scope)).resolves.toEqual({ fingerprint: FINGERPRINT, outcome: OUTCOME, expiresAt: NOW + DAY_MS });
    await expect(second.records.claim(claimOf('held', 'another-process'), FINGERPRINT, NOW + 10_000)).resolves.toBe(false);
    // A claim refused for a stored record is not kept: the record is what a retry finds.
    await expect(second.records.find(claim.scope)).resolves.toMatchObject({ outcome: OUTCOME });
  });

  it('lets one of two processes that run the same key at once complete it; the other unit is undone', async () => {
    const pets = await petCount();
    const [mine, theirs] = [claimOf('both', 'first-process'), claimOf('both', 'second-process')];
    await expect(first.records.claim(mine, FINGERPRINT, NOW + 10_000)).resolves.toBe(true);
    await expect(second.records.claim(theirs, FINGERPRINT, NOW + 10_000)).resolves.toBe(true);
    await createIn(first, mine);
    await expect(createIn(second, theirs)).rejects.toThrow('claim lost');
    expect(await petCount()).toBe(pets + 1);
    await expect(second.records.find(theirs.scope)).resolves.toEqual({ fingerprint: FINGERPRINT, expiresAt: NOW + 10_000 });
    await second.records.release(theirs);
    await expect(second.records.find(theirs.scope)).resolves.toMatchObject({ outcome: OUTCOME });
  });

  it('frees a released claim, and keeps a claim from being released or completed by a request it is no longer', async () => {
    const claim = claimOf('released');
    await expect(first.records.claim(claim, FINGERPRINT, NOW + 10_000)).resolves.toBe(true);
    await first.records.release(claimOf('released', 'someone-else'));
    await expect(first.records.find(claim.scope)).resolves.not.toBeNull();
    await first.records.release(claim);
    await expect(first.records.find(claim.scope)).resolves.toBeNull();
    await expect(first.records.claim(claimOf('released', 'the-retry'), FINGERPRINT, NOW + 10_000)).resolves.toBe(true);
    await expect(first.unitOfWork.run(() => first.records.complete(claim, OUTCOME, NOW + DAY_MS))).resolves.toBe(false);
  });
});
