import { DataSource } from 'typeorm';
import { createDataSourceOptions } from '../src/database/database-options';
import { runMigrations } from '../src/database/run-migrations';
import { SqlRunner } from '../src/database/sql-runner';
import { createTestDatabase, TestDatabase } from './support/test-database';

type Row = { id: number; name: string; categoryId: number; status: string };

const INSERT = 'INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?)';
const BY_ID = 'SELECT id, name, category_id AS categoryId, status FROM pets WHERE id = ?';

/** The SqlRunner's MySQL path on the real MariaDB, with the service's own options and migrations. */
(process.env.MYSQL_AVAILABLE === '1' ? describe : describe.skip)('SqlRunner on MySQL [mysql]', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let sql: SqlRunner;

  beforeAll(async () => {
    database = await createTestDatabase('mysql');
    dataSource = await new DataSource(createDataSourceOptions(database.url)).initialize();
    await runMigrations(dataSource);
    sql = new SqlRunner(dataSource);
  });

  afterAll(async () => {
    if (dataSource?.isInitialized) await dataSource.destroy();
    await database?.drop();
  });

  it("answers a write with mysql2's result header and a read with its rows, as DataSource.query does, without its QueryRunner", async () => {
    const queryRunners = jest.spyOn(dataSource, 'createQueryRunner');
    const written = await sql.query<{ insertId: number; affectedRows: number }>(INSERT, ['Rex', 3, 'available']);
    expect(written).toMatchObject({ affectedRows: 1, insertId: expect.any(Number) });
    const rows = await sql.query<Row[]>(BY_ID, [written.insertId]);
    expect(rows).toEqual([{ id: written.insertId, name: 'Rex', categoryId: 3, status: 'available' }]);
    await expect(dataSource.query(BY_ID, [written.insertId])).resolves.toEqual(rows);
    await expect(sql.query(BY_ID, [written.insertId + 1_000])).resolves.toEqual([]);
    expect(queryRunners).toHaveBeenCalledTimes(1); // by the DataSource.query above, not by the runner
    queryRunners.mockRestore();
  });

  it("returns ids as JS numbers, under the pool's BIGINT options", async () => {
    const { insertId } = await sql.query<{ insertId: number }>(INSERT, ['Tom', 9_007_199_254_740, 'sold']);
    const [row] = await sql.query<Row[]>(BY_ID, [insertId]);
    expect(typeof row.id).toBe('number');
    expect(row.categoryId).toBe(9_007_199_254_740);
  });

  it('rejects with the driver error and keeps working; every connection goes back to the pool', async () => {
    // More failures than the pool's 10 connections, then more queries at once than it has:
    // a connection kept by a failed or a finished query would leave them waiting for ever.
    for (let i = 0; i < 12; i++) await expect(sql.query('SELECT nope FROM pets', [])).rejects.toThrow(/Unknown column 'nope'/);
    const many = await Promise.all(Array.from({ length: 40 }, (_, i) => sql.query<Row[]>(BY_ID, [i + 1])));
    expect(many).toHaveLength(40);
  }, 10_000);

  it('uses the new pool of a DataSource initialized again', async () => {
    await dataSource.destroy();
    await expect(sql.query(BY_ID, [1])).rejects.toThrow();
    await dataSource.initialize();
    await expect(sql.query<Row[]>(BY_ID, [1])).resolves.toHaveLength(1);
  });
});
