import { DataSource } from 'typeorm';
import { createDataSourceOptions } from '../src/database/database-options';
import { runMigrations } from '../src/database/run-migrations';
import { TypeOrmUnitOfWork } from '../src/database/typeorm-unit-of-work';
import { createTestDatabase, TestDatabase } from './support/test-database';

/** The unit of work on the real MariaDB: a transaction per unit, on a pooled connection of its own. */
(process.env.MYSQL_AVAILABLE === '1' ? describe : describe.skip)('TypeOrmUnitOfWork on MySQL [mysql]', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let unitOfWork: TypeOrmUnitOfWork;

  beforeAll(async () => {
    database = await createTestDatabase('mysql');
    dataSource = await new DataSource(createDataSourceOptions(database.url)).initialize();
    await runMigrations(dataSource);
    unitOfWork = new TypeOrmUnitOfWork(dataSource);
  });

  afterAll(async () => {
    if (dataSource?.isInitialized) await dataSource.destroy();
    await database?.drop();
  });

  beforeEach(() => dataSource.query('DELETE FROM pets'));

  const insertPet = async (name: string) => (await unitOfWork.manager()).query("INSERT INTO pets (name, category_id, status) VALUES (?, 1, 'available')", [name]);
  const storedNames = async (): Promise<string[]> => (await dataSource.query('SELECT name FROM pets ORDER BY id')).map((row: { name: string }) => row.name);
  const deferred = () => {
    let resolve!: () => void;
    const promise = new Promise<void>((done) => (resolve = done));
    return { promise, resolve };
  };

  it('commits what the work wrote together, and says how many rows a statement changed', async () => {
    await unitOfWork.run(async () => {
      await insertPet('Rex');
      await insertPet('Tom');
      await expect(unitOfWork.execute("UPDATE pets SET status = 'sold' WHERE name IN ('Rex', 'Tom', 'Kit')", [])).resolves.toBe(2);
      // Nothing is visible outside the unit before it ends.
      await expect(storedNames()).resolves.toEqual([]);
    });
    await expect(dataSource.query('SELECT name, status FROM pets ORDER BY id')).resolves.toEqual([
      { name: 'Rex', status: 'sold' },
      { name: 'Tom', status: 'sold' },
    ]);
  });

  it('keeps nothing of a work that throws, and raises its error', async () => {
    await expect(
      unitOfWork.run(async () => {
        await insertPet('Rex');
        await unitOfWork.run(() => insertPet('Tom'));
        throw new Error('the outcome could not be stored');
      }),
    ).rejects.toThrow('the outcome could not be stored');
    await expect(storedNames()).resolves.toEqual([]);
  });

  it('keeps units apart: undoing one leaves what another, or a statement from elsewhere, wrote meanwhile', async () => {
    const hold = deferred();
    const first = unitOfWork.run(async () => {
      await insertPet('Rex');
      await hold.promise;
      throw new Error('first undone');
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await unitOfWork.run(() => insertPet('Tom'));
    await dataSource.query("INSERT INTO pets (name, category_id, status) VALUES ('Kit', 1, 'available')");
    hold.resolve();
    await expect(first).rejects.toThrow('first undone');
    await expect(storedNames()).resolves.toEqual(['Tom', 'Kit']);
  });
});
