import { open, rename, rm } from 'node:fs/promises';
import type { DataSource, QueryRunner } from 'typeorm';
import {
  BACKUP_FORMAT,
  BACKUP_VERSION,
  BackupRefusedError,
  type BackupHeader,
  type BackupRow,
  type BackupTrailer,
  checksumLine,
  rowLineStart,
  startChecksum,
  startsAsBackup,
  toFileValue,
} from './backup-file';
import { dialectOf, lastMigration, readStoreTables, type StoreTable } from './store-schema';

/** Lines on stderr while a long backup or restore runs. */
export interface Progress {
  note(text: string): void;
}

export interface BackupOutcome {
  readonly header: BackupHeader;
  readonly rows: Readonly<Record<string, number>>;
}

const PAGE_ROWS = 1_000;
/** How often a long table says how far it has come. */
export const NOTE_EVERY_ROWS = 100_000;

/**
 * Writes every row of every table of the store to `path`, as they stood at
 * one moment, while the service goes on serving and writing. The file appears
 * under its name only once complete (written beside it, then renamed), and is
 * readable by its owner alone: it holds every key's hash.
 */
export async function backUpStore(dataSource: DataSource, path: string, progress: Progress): Promise<BackupOutcome> {
  const dialect = dialectOf(dataSource);
  // A backup replaces an older one of the same name, never another file (the store's own, say).
  const replaces = await startsAsBackup(path).catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? true : Promise.reject(error)));
  if (!replaces) throw new BackupRefusedError(`${path} exists and is not a backup: name a new file`);
  const partial = `${path}.partial`;
  // Made afresh, so the mode is this one and not a stale file's.
  await rm(partial, { force: true });
  const file = await open(partial, 'wx', 0o600).catch((error: NodeJS.ErrnoException) => {
    throw new BackupRefusedError(`cannot write ${path} (${error.code ?? error.message})`);
  });
  const runner = dataSource.createQueryRunner();
  const digest = startChecksum();
  const append = async (text: string) => {
    digest.update(text);
    await file.appendFile(text);
  };
  let complete = false;
  try {
    const startedAt = new Date().toISOString();
    await dialect.beginSnapshot(runner);
    let header: BackupHeader;
    const rows: Record<string, number> = {};
    const nextIds: Record<string, number> = {};
    try {
      // SQLite's snapshot is taken at this first read.
      const tables = await readStoreTables(runner, dialect);
      const migration = await lastMigration(runner, dialect);
      if (migration === undefined) throw new BackupRefusedError('the store has no schema yet: start the service or run npm run migrate on it first');
      header = { format: BACKUP_FORMAT, version: BACKUP_VERSION, store: dialect.kind, migration, startedAt, tables: tables.map(({ name, columns }) => ({ name, columns })) };
      await append(`${JSON.stringify(header)}\n`);
      for (const table of tables) {
        const { count, maxId } = await copyTable(runner, table, append, progress);
        rows[table.name] = count;
        if (table.autoIncrement) nextIds[table.name] = maxId + 1;
      }
      // Read last, so each counter is at least where it stood for every row above.
      for (const [name, next] of Object.entries(await dialect.nextIds(runner))) {
        if (name in nextIds) nextIds[name] = Math.max(nextIds[name], next);
      }
    } finally {
      await dialect.endSnapshot(runner);
    }
    const trailer: BackupTrailer = { end: true, rows, nextIds };
    await append(`${JSON.stringify(trailer)}\n`);
    await file.appendFile(checksumLine(digest));
    await file.sync();
    complete = true;
    return { header, rows };
  } finally {
    await runner.release();
    await file.close();
    if (complete) await rename(partial, path);
    else await rm(partial, { force: true });
  }
}

/** Reads a table page by page in primary-key order, each page after the last key of the one before. */
async function copyTable(
  runner: QueryRunner,
  table: StoreTable,
  write: (chunk: string) => Promise<void>,
  progress: Progress,
): Promise<{ count: number; maxId: number }> {
  const escape = (name: string) => runner.dataSource.driver.escape(name);
  const columns = Object.entries(table.columns);
  const select = `SELECT ${columns.map(([name]) => escape(name)).join(', ')} FROM ${escape(table.name)}`;
  const order = `ORDER BY ${table.primaryKey.map(escape).join(', ')} LIMIT ${PAGE_ROWS}`;
  // (a > ?) OR (a = ? AND b > ?) ...: the rows after a key, on any number of key columns, by the primary key's index.
  const after = table.primaryKey
    .map((key, at) => `(${[...table.primaryKey.slice(0, at).map((before) => `${escape(before)} = ?`), `${escape(key)} > ?`].join(' AND ')})`)
    .join(' OR ');
  const start = rowLineStart(table.name);
  let last: Record<string, unknown> | undefined;
  let count = 0;
  let maxId = 0;
  for (;;) {
    const parameters = last ? table.primaryKey.flatMap((key, at) => [...table.primaryKey.slice(0, at), key].map((name) => last![name])) : [];
    const page = (await runner.query(last ? `${select} WHERE ${after} ${order}` : `${select} ${order}`, parameters)) as Array<Record<string, unknown>>;
    if (page.length === 0) break;
    const lines = page.map((stored) => {
      const row: BackupRow = {};
      for (const [name, kind] of columns) {
        const value = toFileValue(kind, stored[name]);
        if (value === undefined) throw new BackupRefusedError(`a row of ${table.name} holds in ${name} a value that is not ${kind === 'integer' ? 'an' : 'a'} ${kind}`);
        row[name] = value;
      }
      return `${start}${JSON.stringify(row).slice(1)}}\n`;
    });
    await write(lines.join(''));
    count += page.length;
    if (table.autoIncrement) maxId = Math.max(maxId, ...page.map((row) => Number(row[table.autoIncrement!])));
    if (Math.floor(count / NOTE_EVERY_ROWS) > Math.floor((count - page.length) / NOTE_EVERY_ROWS)) progress.note(`${table.name}: ${count.toLocaleString('en-US')} rows...`);
    if (page.length < PAGE_ROWS) break;
    last = page[page.length - 1];
  }
  return { count, maxId };
}
