import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { DatabaseKind } from '../database-options';
import { type BackupRow, describeRow, nextIdProblem, type TableRestoreRules } from './restore-rules';

export type { BackupRow } from './restore-rules';

/** The name on a backup's first line, and the version of the format this release writes. */
export const BACKUP_FORMAT = 'animal-store-backup';
export const BACKUP_VERSION = 2;
/** The versions a restore reads: version 1 is version 2 without its checksum line. */
const READABLE_VERSIONS: readonly number[] = [1, 2];
const FIRST_VERSION_WITH_CHECKSUM = 2;

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

/** The line after the last: the SHA-256 of every line before it, each with its newline, as lower-case hex. */
export interface BackupChecksum {
  readonly sha256: string;
}

/** The digest a backup's checksum line carries, fed every line before it as written. */
export function startChecksum(): Hash {
  return createHash('sha256');
}

export function checksumLine(digest: Hash): string {
  return `${JSON.stringify({ sha256: digest.digest('hex') } satisfies BackupChecksum)}\n`;
}

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

/** A backup file that passed every check: its header, its trailer, and whether a checksum vouches for its bytes. */
export interface CheckedBackup {
  readonly header: BackupHeader;
  readonly trailer: BackupTrailer;
  /** False for a backup of version 1, written before backups carried one. */
  readonly hasChecksum: boolean;
}

/** The first bytes of every backup; checked before reading lines, so a large file of another kind is refused at once. */
const MAGIC = `{"format":"${BACKUP_FORMAT}"`;

const isChecksum = (value: unknown): value is BackupChecksum =>
  isObject(value) && Object.keys(value).length === 1 && typeof value.sha256 === 'string' && /^[0-9a-f]{64}$/.test(value.sha256);

/**
 * Reads the whole file and checks it is one complete backup, as written: the
 * header, rows of the header's tables in its order with exactly its columns
 * and kinds, each keeping its table's rules, the trailer whose counts match
 * and whose counters leave room for new ids, and (from version 2) the
 * checksum of all of it. A file whose checksum does not match is refused as
 * altered, whatever else it breaks. Nothing touches a store before this passes.
 */
export async function checkBackupFile(path: string, rules: readonly TableRestoreRules[]): Promise<CheckedBackup> {
  const refuse: (why: string) => never = (why) => {
    throw new BackupRefusedError(`${path} ${why}`);
  };
  const isBackup = await startsAsBackup(path).catch((error: NodeJS.ErrnoException) =>
    refuse(error.code === 'ENOENT' ? 'does not exist' : `cannot be read (${error.code ?? error.message})`),
  );
  if (!isBackup) refuse('is not an animal-store backup');
  const rulesOf = new Map(rules.map((table) => [table.table, table]));

  let header: BackupHeader | undefined;
  let trailer: BackupTrailer | undefined;
  let checksum: BackupChecksum | undefined;
  let table = -1;
  const counts: Record<string, number> = {};
  const maxIds: Record<string, number> = {};
  // The first problem found; said only once the checksum is known, since an altered file is refused as such.
  let problem: string | undefined;
  const digest = startChecksum();
  let previous: string | undefined;
  let lineNumber = 0;
  for await (const line of readLines(path)) {
    lineNumber++;
    // Every line but the last goes into the digest: the last is the checksum line, if the file is whole.
    if (previous !== undefined) digest.update(`${previous}\n`);
    previous = line;
    if (problem !== undefined) continue;
    const value = parseJsonLine(line);
    if (!header) {
      const at = `is damaged at line ${lineNumber}`;
      if (!isObject(value) || value.format !== BACKUP_FORMAT) refuse('is not an animal-store backup');
      const { version } = value as { version?: unknown };
      if (!READABLE_VERSIONS.includes(version as number)) {
        refuse(`is a backup of format version ${String(version)}; this release reads versions ${READABLE_VERSIONS.join(' and ')}`);
      }
      if (!isHeader(value)) refuse(`${at}: its header is not one this release wrote`);
      header = value as BackupHeader;
      const unruled = header.tables.find(({ name }) => !rulesOf.has(name));
      if (unruled) refuse(`holds table ${unruled.name}, which this release has no restore rules for`);
      for (const { name } of header.tables) counts[name] = 0;
      continue;
    }
    problem = await lineProblem(lineNumber, value, line);
  }
  if (!header) refuse('is not an animal-store backup');
  const hasChecksum = header!.version >= FIRST_VERSION_WITH_CHECKSUM;
  if (hasChecksum) {
    const last = parseJsonLine(previous!);
    if (!isChecksum(last)) refuse('is cut short: it ends before its checksum line');
    if (last.sha256 !== digest.digest('hex')) refuse('does not match its checksum: a line was changed, added or removed since it was written');
  }
  if (problem !== undefined) refuse(problem);
  if (!trailer) refuse('is cut short: its last line is missing');
  return { header: header!, trailer: trailer!, hasChecksum };

  /** What is wrong with one line after the header, in the file's order, or undefined. */
  async function lineProblem(lineNumber: number, value: unknown, line: string): Promise<string | undefined> {
    const at = `is damaged at line ${lineNumber}`;
    if (checksum) return `${at}: a line follows its checksum`;
    if (trailer) {
      if (header!.version >= FIRST_VERSION_WITH_CHECKSUM && isChecksum(value)) {
        checksum = value;
        return undefined;
      }
      return `${at}: a line follows the last one`;
    }
    if (isObject(value) && Object.hasOwn(value, 'end')) {
      if (!isTrailer(value, header!)) return `${at}: its last line is not one this release wrote`;
      trailer = value as BackupTrailer;
      const mismatch = header!.tables.find(({ name }) => trailer!.rows[name] !== counts[name]);
      if (mismatch) return `is damaged: it holds ${counts[mismatch.name]} rows of ${mismatch.name}, its last line says ${trailer.rows[mismatch.name]}`;
      for (const name of new Set([...Object.keys(trailer.nextIds), ...Object.keys(maxIds)])) {
        const broken = nextIdProblem(name, Math.max(trailer.nextIds[name] ?? 0, (maxIds[name] ?? 0) + 1));
        if (broken) return `breaks a rule at line ${lineNumber}: ${broken}`;
      }
      return undefined;
    }
    if (!isObject(value) || typeof value.table !== 'string' || !isObject(value.row) || !line.startsWith(rowLineStart(value.table))) {
      return `${at}: not a row`;
    }
    const { table: name, row } = value as { table: string; row: BackupRow };
    // Rows come table by table in the header's order, so a table may only follow the one before it.
    if (header!.tables[table]?.name !== name) {
      const next = header!.tables.findIndex((candidate) => candidate.name === name);
      if (next <= table) return `${at}: a row of ${next < 0 ? 'a table its header does not name' : `${name} out of its place`}`;
      table = next;
    }
    const { columns } = header!.tables[table];
    const names = Object.keys(row);
    const odd = names.find((column) => !Object.hasOwn(columns, column)) ?? Object.keys(columns).find((column) => !Object.hasOwn(row, column));
    if (odd !== undefined) return `${at}: a row of ${name} without its columns as the header gives them (${odd})`;
    const misfit = names.find((column) => !fitsKind(columns[column], row[column]));
    if (misfit !== undefined) return `${at}: ${name}.${misfit} is not ${columns[misfit] === 'integer' ? 'an' : 'a'} ${columns[misfit]}`;
    const tableRules = rulesOf.get(name)!;
    const broken = await tableRules.checkRow(row);
    if (broken !== undefined) return `breaks a rule at line ${lineNumber} (${describeRow(tableRules, row)}): ${broken}`;
    if (tableRules.numbered) maxIds[name] = Math.max(maxIds[name] ?? 0, row[tableRules.numbered] as number);
    counts[name]++;
    return undefined;
  }
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
