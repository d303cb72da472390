import { type DataSource, QueryFailedError, type QueryRunner } from 'typeorm';
import { NOTE_EVERY_ROWS, type Progress } from './back-up';
import { BackupRefusedError, type CheckedBackup, describeRows, rowsOf, toStoreValue } from './backup-file';
import { runMigrations } from '../run-migrations';
import type { BackupRow, TableRestoreRules } from './restore-rules';
import { deferredColumns, dialectOf, lastMigration, latestMigrationOf, readStoreTables, type StoreTable } from './store-schema';

/** Parameters per INSERT: far below either store's limit, and a few hundred rows a statement. */
const PARAMETERS_PER_STATEMENT = 2_000;

/** A deferred column's value, set once every table is in. */
interface LaterUpdate {
  readonly table: StoreTable;
  readonly set: ReadonlyArray<readonly [string, string | number | null]>;
  readonly key: ReadonlyArray<string | number | null>;
}

/**
 * Restores a checked backup into the store, which must be empty; it is
 * migrated first, and its last migration must be the backup's. Every row goes
 * in inside one transaction, so a row the store refuses leaves it empty; then
 * each auto-increment counter is moved on to where it stood, past every
 * restored id. The rules that span rows are asked of the restored rows before
 * the commit, so a backup that breaks one leaves the store empty too.
 */
export async function restoreStore(
  dataSource: DataSource,
  path: string,
  backup: CheckedBackup,
  progress: Progress,
  rules: readonly TableRestoreRules[],
): Promise<void> {
  const { header, trailer } = backup;
  const dialect = dialectOf(dataSource);
  const runner = dataSource.createQueryRunner();
  try {
    const latest = latestMigrationOf(dataSource);
    if (header.migration !== latest) {
      throw new BackupRefusedError(
        `${path} was taken at migration ${header.migration}, and this release migrates a store to ${latest}: restore it with the release that took it`,
      );
    }
    // A store that is not empty is refused before anything is done to it, migrations included.
    await refuseUnlessEmpty(runner, await readStoreTables(runner, dialect));
    await runMigrations(dataSource);
    const tables = await readStoreTables(runner, dialect);
    const migration = await lastMigration(runner, dialect);
    if (migration !== header.migration) {
      throw new BackupRefusedError(`this store is at migration ${migration ?? 'none'}, which this release does not know: restore with the release that migrated it`);
    }
    refuseUnlessSameTables(path, tables, header.tables);
    const nextIds: Record<string, number> = {};
    // InnoDB keeps the counters that rolled-back inserts moved, so a refused restore puts them back itself.
    const countersBefore = dialect.setsNextIdsInTransaction ? {} : await dialect.nextIds(runner);
    await runner.startTransaction();
    let table: StoreTable | undefined;
    try {
      await refuseUnlessEmpty(runner, tables);
      const order = tables.map(({ name }) => name);
      const later: LaterUpdate[] = [];
      for (table of tables) {
        const maxId = await insertRows(runner, table, rowsOf(path, table.name), deferredColumns(order, table), later, progress);
        if (table.autoIncrement) nextIds[table.name] = Math.max(trailer.nextIds[table.name] ?? 0, maxId + 1);
      }
      for (const update of later) {
        table = update.table;
        await runner.query(
          `UPDATE ${escape(runner, table.name)} SET ${update.set.map(([column]) => `${escape(runner, column)} = ?`).join(', ')} WHERE ${whereKey(runner, table)}`,
          [...update.set.map(([, value]) => value), ...update.key],
        );
      }
      table = undefined;
      for (const { checkRestored } of rules) {
        const problem = await checkRestored?.(async (sql) => (await runner.query(sql)) as BackupRow[]);
        if (problem) throw new BackupRefusedError(`${problem}; nothing was restored`);
      }
      if (dialect.setsNextIdsInTransaction) for (const [name, next] of Object.entries(nextIds)) await dialect.setNextId(runner, name, next);
      await runner.commitTransaction();
    } catch (error) {
      await runner.rollbackTransaction();
      for (const { name } of tables) if (name in countersBefore) await dialect.setNextId(runner, name, countersBefore[name]);
      // The driver's own message may quote a value (a key's hash): only its code is said.
      const code = error instanceof QueryFailedError ? (error.driverError as { code?: string } | undefined)?.code : undefined;
      if (code && table) throw new BackupRefusedError(`the store refused a row of ${table.name} (${code}); nothing was restored`);
      throw error;
    }
    if (!dialect.setsNextIdsInTransaction) for (const [name, next] of Object.entries(nextIds)) await dialect.setNextId(runner, name, next);
  } finally {
    await runner.release();
  }
}

function escape(runner: QueryRunner, name: string): string {
  return runner.dataSource.driver.escape(name);
}

function whereKey(runner: QueryRunner, table: StoreTable): string {
  return table.primaryKey.map((column) => `${escape(runner, column)} = ?`).join(' AND ');
}

/** The same migration gives the same tables on both stores; this says which one differs if a schema was changed by hand. */
function refuseUnlessSameTables(path: string, tables: readonly StoreTable[], backed: CheckedBackup['header']['tables']): void {
  const ours = new Map(tables.map((table) => [table.name, table]));
  for (const { name, columns } of backed) {
    const table = ours.get(name);
    if (!table) throw new BackupRefusedError(`${path} holds table ${name}, which this store does not have`);
    const differs = [...Object.keys(columns), ...Object.keys(table.columns)].find((column) => columns[column] !== table.columns[column]);
    if (differs !== undefined) throw new BackupRefusedError(`${path} holds table ${name} with other columns than this store's (${differs})`);
    ours.delete(name);
  }
  const [missing] = ours.keys();
  if (missing !== undefined) throw new BackupRefusedError(`${path} holds no table ${missing}, which this store has`);
}

async function refuseUnlessEmpty(runner: QueryRunner, tables: readonly StoreTable[]): Promise<void> {
  const rows: Record<string, number> = {};
  for (const { name } of tables) {
    const [{ n }] = (await runner.query(`SELECT COUNT(*) AS n FROM ${escape(runner, name)}`)) as Array<{ n: number | string }>;
    if (Number(n) > 0) rows[name] = Number(n);
  }
  if (Object.keys(rows).length) throw new BackupRefusedError(`the store is not empty (${describeRows(rows)}): restore into an empty store`);
}

/** Inserts a table's rows in multi-row statements, its deferred columns null for now; answers the largest auto-increment id. */
async function insertRows(
  runner: QueryRunner,
  table: StoreTable,
  rows: AsyncIterable<Record<string, string | number | null>>,
  deferred: readonly string[],
  later: LaterUpdate[],
  progress: Progress,
): Promise<number> {
  const columns = Object.entries(table.columns);
  const perStatement = Math.max(1, Math.floor(PARAMETERS_PER_STATEMENT / columns.length));
  const into = `INSERT INTO ${escape(runner, table.name)} (${columns.map(([name]) => escape(runner, name)).join(', ')}) VALUES `;
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  let batch: Array<string | number | null> = [];
  let batchRows = 0;
  let maxId = 0;
  let count = 0;
  const flush = async () => {
    if (batchRows === 0) return;
    await runner.query(into + Array(batchRows).fill(tuple).join(', '), batch);
    if (Math.floor((count + batchRows) / NOTE_EVERY_ROWS) > Math.floor(count / NOTE_EVERY_ROWS)) {
      progress.note(`${table.name}: ${(count + batchRows).toLocaleString('en-US')} rows...`);
    }
    count += batchRows;
    batch = [];
    batchRows = 0;
  };
  for await (const row of rows) {
    batch.push(...columns.map(([name, kind]) => (deferred.includes(name) ? null : toStoreValue(kind, row[name]))));
    const set = deferred.filter((column) => row[column] !== null).map((column) => [column, toStoreValue(table.columns[column], row[column])] as const);
    if (set.length) later.push({ table, set, key: table.primaryKey.map((column) => row[column]) });
    if (table.autoIncrement) maxId = Math.max(maxId, row[table.autoIncrement] as number);
    if (++batchRows === perStatement) await flush();
  }
  await flush();
  return maxId;
}
