import { DataSource } from 'typeorm';
import { SqlRunner } from './sql-runner';

type Row = { id: number; name: string };

// The MySQL path runs on the real MariaDB: test/sql-runner-mysql.int-spec.ts.
describe('SqlRunner on SQLite', () => {
  let dataSource: DataSource;
  let sql: SqlRunner;

  beforeEach(async () => {
    dataSource = await new DataSource({ type: 'better-sqlite3', database: ':memory:' }).initialize();
    await dataSource.query('CREATE TABLE pets (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL)');
    sql = new SqlRunner(dataSource);
  });

  afterEach(async () => {
    if (dataSource.isInitialized) await dataSource.destroy();
  });

  const connection = () => (dataSource.driver as unknown as { databaseConnection: { prepare(sql: string): unknown } }).databaseConnection;

  it('answers a write with the new rowid and a read with its rows, as DataSource.query does', async () => {
    await expect(sql.query('INSERT INTO pets (name) VALUES (?)', ['Rex'])).resolves.toBe(1);
    await expect(sql.query('INSERT INTO pets (name) VALUES (?)', ['Tom'])).resolves.toBe(2);
    await expect(sql.query<Row[]>('SELECT id, name FROM pets WHERE id > ? ORDER BY id', [0])).resolves.toEqual([
      { id: 1, name: 'Rex' },
      { id: 2, name: 'Tom' },
    ]);
    await expect(sql.query('SELECT id, name FROM pets WHERE id = ?', [9])).resolves.toEqual([]);
    await expect(dataSource.query('SELECT name FROM pets WHERE id = ?', [2])).resolves.toEqual([{ name: 'Tom' }]);
  });

  it('runs a query only after the I/O already waiting in the event loop', async () => {
    const order: string[] = [];
    const prepare = jest.spyOn(connection(), 'prepare');
    // Stands for a request that has arrived but not yet been read: it is queued before the query is asked for.
    setImmediate(() => order.push('waiting request'));

    const rows = sql.query('SELECT id FROM pets', []).then((found) => (order.push('query'), found));
    expect(prepare).not.toHaveBeenCalled();

    await expect(rows).resolves.toEqual([]);
    expect(order).toEqual(['waiting request', 'query']);
  });

  it('prepares each statement once and reuses it', async () => {
    const prepare = jest.spyOn(connection(), 'prepare');
    for (const name of ['Rex', 'Tom', 'Kit']) await sql.query('INSERT INTO pets (name) VALUES (?)', [name]);
    await sql.query('SELECT id FROM pets WHERE id = ?', [1]);
    await sql.query('SELECT id FROM pets WHERE id = ?', [2]);
    expect(prepare.mock.calls.map(([text]) => text)).toEqual(['INSERT INTO pets (name) VALUES (?)', 'SELECT id FROM pets WHERE id = ?']);
  });

  it('rejects with the driver error for bad SQL or a broken constraint, and keeps working', async () => {
    // Matched by message: better-sqlite3's native code makes its errors in the context it was first loaded in.
    await expect(sql.query('SELECT id FROM nowhere', [])).rejects.toMatchObject({ message: expect.stringMatching(/no such table/) });
    await expect(sql.query('INSERT INTO pets (name) VALUES (?)', [null])).rejects.toMatchObject({ message: expect.stringMatching(/NOT NULL/) });
    await expect(sql.query('INSERT INTO pets (name) VALUES (?)', ['Rex'])).resolves.toBe(1);
  });

  it('prepares afresh on a new connection once the DataSource is initialized again', async () => {
    await sql.query('SELECT id FROM pets', []);
    await dataSource.destroy();
    await dataSource.initialize();
    await dataSource.query('CREATE TABLE pets (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL)');
    await expect(sql.query('SELECT id FROM pets', [])).resolves.toEqual([]);
  });
});
