import { DataSource } from 'typeorm';
import { createDataSourceOptions } from './database-options';
import { runMigrations } from './run-migrations';
import { TypeOrmUnitOfWork } from './typeorm-unit-of-work';

// The same unit of work on the real MariaDB: test/unit-of-work.int-spec.ts.
describe('TypeOrmUnitOfWork on SQLite', () => {
  let dataSource: DataSource;
  let unitOfWork: TypeOrmUnitOfWork;

  beforeEach(async () => {
    dataSource = await new DataSource(createDataSourceOptions('sqlite::memory:')).initialize();
    await runMigrations(dataSource);
    unitOfWork = new TypeOrmUnitOfWork(dataSource);
  });

  afterEach(() => dataSource.destroy());

  const insertPet = async (name: string) => (await unitOfWork.manager()).query("INSERT INTO pets (name, category_id, status) VALUES (?, 1, 'available')", [name]);
  const storedNames = async (): Promise<string[]> => (await dataSource.query('SELECT name FROM pets ORDER BY id')).map((row: { name: string }) => row.name);
  const deferred = () => {
    let resolve!: () => void;
    const promise = new Promise<void>((done) => (resolve = done));
    return { promise, resolve };
  };
  /** Lets every pending microtask and I/O callback run, so a statement that could run has run. */
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  it('commits what the work wrote together, and says how many rows a statement changed', async () => {
    await unitOfWork.run(async () => {
      await insertPet('Rex');
      await insertPet('Tom');
      await expect(unitOfWork.execute("UPDATE pets SET status = 'sold' WHERE name IN ('Rex', 'Tom', 'Kit')", [])).resolves.toBe(2);
    });
    await expect(dataSource.query('SELECT name, status FROM pets ORDER BY id')).resolves.toEqual([
      { name: 'Rex', status: 'sold' },
      { name: 'Tom', status: 'sold' },
    ]);
  });

  it('keeps nothing of a work that throws, and raises its error', async () => {
    const failing = unitOfWork.run(async () => {
      await insertPet('Rex');
      throw new Error('the outcome could not be stored');
    });
    await expect(failing).rejects.toThrow('the outcome could not be stored');
    await expect(storedNames()).resolves.toEqual([]);
  });

  it('joins a unit started inside another one', async () => {
    await expect(
      unitOfWork.run(async () => {
        await insertPet('Rex');
        await unitOfWork.run(() => insertPet('Tom'));
        throw new Error('undo both');
      }),
    ).rejects.toThrow('undo both');
    await expect(storedNames()).resolves.toEqual([]);
  });

  it("holds back a statement sent from elsewhere while a unit's transaction is open, so it is not undone with it", async () => {
    const hold = deferred();
    const unit = unitOfWork.run(async () => {
      await insertPet('Rex');
      await hold.promise;
      throw new Error('undone');
    });
    await settle();
    let outsideDone = false;
    const outside = dataSource.query("INSERT INTO pets (name, category_id, status) VALUES ('Tom', 1, 'available')").then(() => (outsideDone = true));
    await settle();
    expect(outsideDone).toBe(false);
    hold.resolve();
    await expect(unit).rejects.toThrow('undone');
    await outside;
    await expect(storedNames()).resolves.toEqual(['Tom']);
  });

  it('runs two units at once one after the other, neither inside the other: undoing the first leaves the second', async () => {
    const hold = deferred();
    const first = unitOfWork.run(async () => {
      await insertPet('Rex');
      await hold.promise;
      throw new Error('first undone');
    });
    await settle();
    const second = unitOfWork.run(() => insertPet('Tom'));
    await settle();
    hold.resolve();
    await expect(first).rejects.toThrow('first undone');
    await second;
    await expect(storedNames()).resolves.toEqual(['Tom']);
  });

  it('holds the connection only from its first statement, so other statements run while the work waits before writing', async () => {
    const hold = deferred();
    const unit = unitOfWork.run(async () => {
      await hold.promise;
      await insertPet('Rex');
    });
    await settle();
    await dataSource.query("INSERT INTO pets (name, category_id, status) VALUES ('Tom', 1, 'available')");
    hold.resolve();
    await unit;
    await expect(storedNames()).resolves.toEqual(['Tom', 'Rex']);
  });

  it('runs units and statements from elsewhere sent all at once, each exactly once, none inside another', async () => {
    const order: string[] = [];
    const statements = Array.from({ length: 5 }, (_, i) =>
      dataSource.query("INSERT INTO pets (name, category_id, status) VALUES (?, 1, 'available')", [`outside ${i}`]).then(() => order.push(`outside ${i}`)),
    );
    const units = Array.from({ length: 5 }, (_, i) => unitOfWork.run(() => insertPet(`unit ${i}`)).then(() => order.push(`unit ${i}`)));
    await Promise.all([...statements, ...units]);
    expect(order.sort()).toEqual([...Array.from({ length: 5 }, (_, i) => `outside ${i}`), ...Array.from({ length: 5 }, (_, i) => `unit ${i}`)]);
    await expect(storedNames()).resolves.toHaveLength(10);
  });
});
