import { DataSource } from 'typeorm';
import { execute } from '../src/database/statements';
import { openTransactions, Transactions } from '../src/database/transactions';
import { TransactionalUnitOfWork } from '../src/database/transactional-unit-of-work';
import { MigratedDataSource, openMigratedDataSource } from './support/migrated-data-source';
import { reachableStores } from './support/test-database';


/** The unit of work on each store: a transaction per unit, on a pooled connection of its own (MySQL) or SQLite's one connection held alone. */
describe.each(reachableStores())('TransactionalUnitOfWork [%s]', (store) => {
  let migrated: MigratedDataSource;
  let dataSource: DataSource;
  let transactions: Transactions;
  let unitOfWork: TransactionalUnitOfWork;

  beforeAll(async () => {
    migrated = await openMigratedDataSource(store);
    dataSource = migrated.dataSource;
    transactions = await openTransactions(dataSource);
    unitOfWork = transactions.unitOfWork;
  });

  afterAll(async () => {
    await transactions?.close();
    await migrated?.close();
  });

  beforeEach(() => dataSource.query('DELETE FROM pets'));

  const insertPet = (name: string) => transactions.txHost.tx.query("INSERT INTO pets (name, category_id, status) VALUES (?, 1, 'available')", [name]);
  const insertOutside = (name: string) => dataSource.query("INSERT INTO pets (name, category_id, status) VALUES (?, 1, 'available')", [name]);
  const storedNames = async (): Promise<string[]> => (await dataSource.query('SELECT name FROM pets ORDER BY id')).map((row: { name: string }) => row.name);
  /** A unit that writes `name`, then waits until released and throws, so that everything it wrote is undone. */
  const heldUnitThatFails = (name: string) => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const unit = unitOfWork.run(async () => {
      await insertPet(name);
      await released;
      throw new Error(`${name} undone`);
    });
    return { unit, release };
  };
  /** Lets every pending callback run, so that a statement free to run has run. */
  const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

  it('commits what the work wrote together, and says how many rows a statement changed', async () => {
    await unitOfWork.run(async () => {
      await insertPet('Rex');
      await insertPet('Tom');
      await expect(execute(transactions.txHost.tx, "UPDATE pets SET status = 'sold' WHERE name IN ('Rex', 'Tom', 'Kit')", [])).resolves.toBe(2);
    });
    await expect(dataSource.query('SELECT name, status FROM pets ORDER BY id')).resolves.toEqual([
      { name: 'Rex', status: 'sold' },
      { name: 'Tom', status: 'sold' },
    ]);
  });

  it('keeps nothing of a work that throws, a unit it started inside included, and raises its error', async () => {
    await expect(
      unitOfWork.run(async () => {
        await insertPet('Rex');
        await unitOfWork.run(() => insertPet('Tom'));
        throw new Error('the outcome could not be stored');
      }),
    ).rejects.toThrow('the outcome could not be stored');
    await expect(storedNames()).resolves.toEqual([]);
  });

  it('keeps units apart: undoing one leaves what another, and a statement from elsewhere, wrote meanwhile', async () => {
    const first = heldUnitThatFails('Rex');
    await settle();
    const second = unitOfWork.run(() => insertPet('Tom'));
    const outside = insertOutside('Kit');
    await settle();
    first.release();
    await expect(first.unit).rejects.toThrow('Rex undone');
    await Promise.all([second, outside]);
    await expect(storedNames().then((stored) => stored.sort())).resolves.toEqual(['Kit', 'Tom']);
  });

  it('holds nothing before its first statement: other statements run while the work waits before writing', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const unit = unitOfWork.run(async () => {
      await released;
      await insertPet('Rex');
    });
    await settle();
    await insertOutside('Tom');
    release();
    await unit;
    await expect(storedNames()).resolves.toEqual(['Tom', 'Rex']);
  });

  if (store === 'sqlite') {
    // On SQLite's one connection these are what the gate is for; without it each of them fails.
    it("holds a statement from elsewhere back while a unit's transaction is open, so it is neither inside it nor undone with it", async () => {
      const held = heldUnitThatFails('Rex');
      await settle();
      let outsideDone = false;
      const outside = insertOutside('Tom').then(() => (outsideDone = true));
      await settle();
      expect(outsideDone).toBe(false);
      held.release();
      await expect(held.unit).rejects.toThrow('Rex undone');
      await outside;
      await expect(storedNames()).resolves.toEqual(['Tom']);
    });

    it('refuses a SQLite DataSource whose options list no gate, rather than let statements join a unit unseen', async () => {
      const bare = await new DataSource({ ...dataSource.options, subscribers: [] }).initialize();
      try {
        await expect(openTransactions(bare)).rejects.toThrow('A SQLite DataSource needs SqliteStatementGate among its subscribers');
      } finally {
        await bare.destroy();
      }
    });

    it('runs units and statements from elsewhere sent all at once, each exactly once, none inside another', async () => {
      const names = (prefix: string) => Array.from({ length: 5 }, (_, i) => `${prefix} ${i}`);
      await Promise.all([...names('outside').map(insertOutside), ...names('unit').map((name) => unitOfWork.run(() => insertPet(name)))]);
      await expect(storedNames().then((stored) => stored.sort())).resolves.toEqual([...names('outside'), ...names('unit')]);
    });
  }
});
