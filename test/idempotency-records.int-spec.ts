import { DataSource } from 'typeorm';
import { TypeOrmUnitOfWork } from '../src/database/typeorm-unit-of-work';
import { IdempotencyClaim } from '../src/idempotency/domain/idempotency-record.store';
import { TypeOrmIdempotencyRecordStore } from '../src/idempotency/infrastructure/typeorm-idempotency-record.store';
import { MigratedDataSource, openMigratedDataSource } from './support/migrated-data-source';
import { reachableStores } from './support/test-database';

const NOW = 1_000_000;
const FINGERPRINT = 'f'.repeat(64);

/** The sweep of expired idempotency records, on each store. */
describe.each(reachableStores())('TypeOrmIdempotencyRecordStore.removeExpired [%s]', (store) => {
  let migrated: MigratedDataSource;
  let dataSource: DataSource;
  let unitOfWork: TypeOrmUnitOfWork;
  let records: TypeOrmIdempotencyRecordStore;

  beforeAll(async () => {
    migrated = await openMigratedDataSource(store);
    dataSource = migrated.dataSource;
    unitOfWork = new TypeOrmUnitOfWork(dataSource);
    records = new TypeOrmIdempotencyRecordStore(unitOfWork);
  });

  afterAll(() => migrated?.close());

  beforeEach(() => dataSource.query('DELETE FROM idempotency_records'));

  const claimOf = (key: string): IdempotencyClaim => ({ scope: { apiKeyId: 1, key }, token: `token-${key}` });
  const claimAll = async (expiries: Record<string, number>) => {
    for (const [key, expiresAt] of Object.entries(expiries)) await expect(records.claim(claimOf(key), FINGERPRINT, expiresAt)).resolves.toBe(true);
  };
  const storedKeys = async (): Promise<string[]> =>
    (await dataSource.query('SELECT idempotency_key AS `key` FROM idempotency_records ORDER BY idempotency_key')).map((row: { key: string }) => row.key);

  it('removes expired records oldest first, at most a batch at a time, and never one still live', async () => {
    await claimAll({ e5: NOW - 1, e1: NOW - 5, e3: NOW - 3, at: NOW, e2: NOW - 4, live: NOW + 1 });
    await records.removeExpired(NOW, 3);
    await expect(storedKeys()).resolves.toEqual(['at', 'e5', 'live']);
    await records.removeExpired(NOW, 3);
    await expect(storedKeys()).resolves.toEqual(['live']);
    await records.removeExpired(NOW, 3);
    await expect(storedKeys()).resolves.toEqual(['live']);
  });

  if (store === 'mysql') {
    it('removes expired records without waiting for a create in progress, whose claim sits just past the expired ones', async () => {
      await claimAll({ old1: NOW - 2, old2: NOW - 1, running: NOW + 3_000, done: NOW + 86_400_000 });
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let completed!: () => void;
      const hasCompleted = new Promise<void>((resolve) => (completed = resolve));
      // As a create does: its outcome stored in its unit of work, which stays open until the create's response is ready.
      const create = unitOfWork.run(async () => {
        await expect(records.complete(claimOf('running'), { status: 201, body: '{}' }, NOW + 86_400_000)).resolves.toBe(true);
        completed();
        await released;
      });
      await hasCompleted;
      const sweep = records.removeExpired(NOW, 500);
      const waited = new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), 3_000).unref());
      try {
        await expect(Promise.race([sweep.then(() => 'done'), waited])).resolves.toBe('done');
        await expect(storedKeys()).resolves.toEqual(['done', 'running']);
      } finally {
        release();
        await Promise.all([create, sweep]);
      }
    });
  }
});
