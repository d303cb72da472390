import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { DatabaseKind } from '../database-options';

/** The name on a backup's first line, and the one version of the format this release writes and reads. */
export const BACKUP_FORMAT = 'animal-store-backup';
export const BACKUP_VERSION = 1;

/** What a column holds, in terms both stores share; the file stores each as JSON the same way whichever store wrote it. */
export type ColumnKind = 'integer' | 'text' | 'datetime';
const COLUMN_KINDS: readonly string[] = ['integer', 'text', 'datetime'] satisfies ColumnKind[];

export interface BackupTable {
  readonly name: string;
  /** Column name to kind; a row line carries exactly these. */
  readonly columns: Readonly<Record<string, ColumnKind>>;
}

/** The first line: what the file is, which store it came from, at which migration, and its tables in the order they restore. */
export interface BackupHeader {
  readonly format: typeof BACKUP_FORMAT;
  readonly version: number;
  readonly store: DatabaseKind;
  readonly migration: string;
  /** When the snapshot was taken: every row is as it stood then. */
  readonly startedAt: string;
  readonly tables: readonly BackupTable[];
}

/** The last line: how many rows each table had, and where each auto-increment counter stood. */
export interface BackupTrailer {
  readonly end: true;
  readonly rows: Readonly<Record<string, number>>;
  readonly nextIds: Readonly<Record<string, number>>;
}

export type BackupRow = Record<string, string | number | null>;

/** Row counts as a summary says them: `1,204 pets, 1 account, 3 api keys`, tables by name. */
export function describeRows(rows: Readonly<Record<string, number>>): string {
  return Object.keys(rows)
    .sort()
    .map((name) => {
      const label = name.replace(/_/g, ' ');
      return `${rows[name].toLocaleString('en-US')} ${rows[name] === 1 ? label.replace(/s$/, '') : label}`;
    })
    .join(', ');
}

/** A backup or restore the command refuses, said in one line without any value of the store. */
export class BackupRefusedError extends Error {}

const ISO_INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
// How TypeORM writes a datetime on SQLite, and what SQLite's own functions write (without the milliseconds).
const SQLITE_DATETIME = /^\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d(\.\d{1,3})?)?Z?$/;

/** A store's value as the file holds it, or undefined when it does not fit its kind (the caller names the column). */
export function toFileValue(kind: ColumnKind, value: unknown): string | number | null | undefined {
  if (value === null) return null;
  switch (kind) {
    case 'integer':
      if (typeof value === 'bigint') return value >= Number.MIN_SAFE_INTEGER && value <= Number.MAX_SAFE_INTEGER ? Number(value) : undefined;
      return Number.isSafeInteger(value) ? (value as number) : undefined;
    case 'text':
      return typeof value === 'string' ? value : undefined;
    case 'datetime': {
      if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString();
      if (typeof value !== 'string' || !SQLITE_DATETIME.test(value)) return undefined;
      const date = new Date(`${value.replace(' ', 'T').replace(/Z$/, '')}Z`);
      return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
    }
  }
}

/** A file's value as a statement parameter: a datetime as `YYYY-MM-DD HH:MM:SS.mmm` in UTC, the form TypeORM writes on both stores. */
export function toStoreValue(kind: ColumnKind, value: string | number | null): string | number | null {
  if (value === null || kind !== 'datetime') return value;
  return (value as string).replace('T', ' ').slice(0, -1);
}

function fitsKind(kind: ColumnKind, value: unknown): boolean {
  if (value === null) return true;
  if (kind === 'integer') return Number.isSafeInteger(value);
  if (kind === 'text') return typeof value === 'string';
  return typeof value === 'string' && ISO_INSTANT.test(value) && !Number.isNaN(Date.parse(value));
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isCount = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 0;

function parseJsonLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

function isHeader(value: unknown): value is BackupHeader {
  if (!isObject(value) || !Array.isArray(value.tables)) return false;
  const { store, migration, startedAt } = value;
  const tablesWellFormed = value.tables.every(
    (table: unknown) =>
      isObject(table) &&
      typeof table.name === 'string' &&
      isObject(table.columns) &&
      Object.values(table.columns).every((kind) => COLUMN_KINDS.includes(kind as string)),
  );
  const names = value.tables.map((table: { name?: unknown }) => table?.name);
  return (
    (store === 'sqlite' || store === 'mysql') &&
    typeof migration === 'string' &&
    typeof startedAt === 'string' &&
    ISO_INSTANT.test(startedAt) &&
    tablesWellFormed &&
    new Set(names).size === names.length
  );
}

function isTrailer(value: unknown, header: BackupHeader): value is BackupTrailer {
  if (!isObject(value) || value.end !== true || !isObject(value.rows) || !isObject(value.nextIds)) return false;
  const names = header.tables.map((table) => table.name);
  const rows = value.rows;
  return (
    names.every((name) => isCount(rows[name])) &&
    Object.keys(rows).length === names.length &&
    Object.entries(value.nextIds).every(([name, next]) => names.includes(name) && isCount(next))
  );
}

/** A backup file that passed every check: its header, its trailer, and how many rows each table holds. */
export interface CheckedBackup {
  readonly header: BackupHeader;
  readonly trailer: BackupTrailer;
}

/** The first bytes of every backup; checked before reading lines, so a large file of another kind is refused at once. */
const MAGIC = `{"format":"${BACKUP_FORMAT}"`;

/**
 * Reads the whole file and checks it is one complete backup: the header, rows
 * of the header's tables in its order with exactly its columns and kinds, and
 * the trailer whose counts match. Nothing touches a store before this passes.
 */
export async function checkBackupFile(path: string): Promise<CheckedBackup> {
  const refuse: (why: string) => never = (why) => {
    throw new BackupRefusedError(`${path} ${why}`);
  };
  const isBackup = await startsAsBackup(path).catch((error: NodeJS.ErrnoException) =>
    refuse(error.code === 'ENOENT' ? 'does not exist' : `cannot be read (${error.code ?? error.message})`),
  );
  if (!isBackup) refuse('is not an animal-store backup');

  let header: BackupHeader | undefined;
  let trailer: BackupTrailer | undefined;
  let table = -1;
  const counts: Record<string, number> = {};
  let lineNumber = 0;
  for await (const line of readLines(path)) {
    lineNumber++;
    const at = `is damaged at line ${lineNumber}`;
    const value = parseJsonLine(line);
    if (!header) {
      if (!isObject(value) || value.format !== BACKUP_FORMAT) refuse('is not an animal-store backup');
      const { version } = value as { version?: unknown };
      if (version !== BACKUP_VERSION) refuse(`is a backup of format version ${String(version)}; this release reads version ${BACKUP_VERSION}`);
      if (!isHeader(value)) refuse(`${at}: its header is not one this release wrote`);
      header = value as BackupHeader;
      for (const { name } of header.tables) counts[name] = 0;
      continue;
    }
    if (trailer) refuse(`${at}: a line follows the last one`);
    if (isObject(value) && Object.hasOwn(value, 'end')) {
      if (!isTrailer(value, header)) refuse(`${at}: its last line is not one this release wrote`);
      trailer = value as BackupTrailer;
      const mismatch = header.tables.find(({ name }) => trailer!.rows[name] !== counts[name]);
      if (mismatch) refuse(`is damaged: it holds ${counts[mismatch.name]} rows of ${mismatch.name}, its last line says ${trailer.rows[mismatch.name]}`);
      continue;
    }
    if (!isObject(value) || typeof value.table !== 'string' || !isObject(value.row) || !line.startsWith(rowLineStart(value.table))) {
      refuse(`${at}: not a row`);
    }
    const { table: name, row } = value as { table: string; row: Record<string, unknown> };
    // Rows come table by table in the header's order, so a table may only follow the one before it.
    if (header.tables[table]?.name !== name) {
      const next = header.tables.findIndex((candidate) => candidate.name === name);
      if (next <= table) refuse(`${at}: a row of ${next < 0 ? 'a table its header does not name' : `${name} out of its place`}`);
      table = next;
    }
    const { columns } = header.tables[table];
    const names = Object.keys(row);
    const odd = names.find((column) => !Object.hasOwn(columns, column)) ?? Object.keys(columns).find((column) => !Object.hasOwn(row, column));
    if (odd !== undefined) refuse(`${at}: a row of ${name} without its columns as the header gives them (${odd})`);
    const misfit = names.find((column) => !fitsKind(columns[column], row[column]));
    if (misfit !== undefined) refuse(`${at}: ${name}.${misfit} is not ${columns[misfit] === 'integer' ? 'an' : 'a'} ${columns[misfit]}`);
    counts[name]++;
  }
  if (!header) refuse('is not an animal-store backup');
  if (!trailer) refuse('is cut short: its last line is missing');
  return { header: header!, trailer: trailer! };
}

/** How every row line of a table begins, as the backup writes it; a restore finds a table's rows by it. */
export function rowLineStart(table: string): string {
  return `{"table":${JSON.stringify(table)},"row":{`;
}

/** The rows of one table, in the file's order; the file has been checked by checkBackupFile, so they stand together. */
export async function* rowsOf(path: string, table: string): AsyncGenerator<BackupRow> {
  const start = rowLineStart(table);
  let seen = false;
  for await (const line of readLines(path)) {
    if (line.startsWith(start)) {
      seen = true;
      yield (JSON.parse(line) as { row: BackupRow }).row;
    } else if (seen) {
      return;
    }
  }
}

/** Whether the file begins as every backup does; it rejects with the file system's error when it cannot be read. */
export async function startsAsBackup(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(MAGIC.length);
    const { bytesRead } = await handle.read(buffer, 0, MAGIC.length, 0);
    return buffer.subarray(0, bytesRead).toString('utf8') === MAGIC;
  } finally {
    await handle.close();
  }
}

function readLines(path: string): AsyncIterable<string> {
  return createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
}
