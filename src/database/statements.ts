import { EntityManager, QueryResult } from 'typeorm';
import { connectBounded } from './database-bounds';
import { unavailableOr } from './driver-errors';

/** Runs one statement through `manager` (a transaction's, from `txHost.tx`, or the DataSource's) and answers its rows. */
export async function query<T>(manager: EntityManager, sql: string, parameters: unknown[]): Promise<T[]> {
  return ((await structuredQuery(manager, sql, parameters)).records ?? []) as T[];
}

/** Runs one statement and answers how many rows it changed, which `query()` alone does not say on every driver. */
export async function execute(manager: EntityManager, sql: string, parameters: unknown[]): Promise<number> {
  return (await structuredQuery(manager, sql, parameters)).affected ?? 0;
}

/** Runs one INSERT and answers the id the store generated for its row. */
export async function insert(manager: EntityManager, sql: string, parameters: unknown[]): Promise<number> {
  const { raw } = await structuredQuery(manager, sql, parameters);
  // mysql2 answers a result header; better-sqlite3 the row id itself.
  return Number(typeof raw === 'object' && raw !== null ? (raw as { insertId: number | string }).insertId : raw);
}

/**
 * Outside a transaction, a database that is unavailable is answered as such
 * here; inside one, the error goes to the work as the driver raised it, and
 * the unit of work answers for the transaction.
 */
async function structuredQuery(manager: EntityManager, sql: string, parameters: unknown[]): Promise<QueryResult> {
  const runner = manager.queryRunner ?? manager.dataSource.createQueryRunner();
  try {
    // A statement of its own waits for its connection within the bound, as a transaction does (docs/adr/0053).
    if (runner !== manager.queryRunner) await connectBounded(runner);
    return await runner.query(sql, parameters, true);
  } catch (error) {
    throw runner === manager.queryRunner ? error : unavailableOr(error);
  } finally {
    if (runner !== manager.queryRunner) await runner.release();
  }
}
