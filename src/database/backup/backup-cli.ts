import { parseArgs } from 'node:util';
import { DataSource } from 'typeorm';
import { createDataSourceOptions } from '../database-options';
import { backUpStore, type Progress } from './back-up';
import { checkBackupFile, describeRows } from './backup-file';
import { restoreStore } from './restore';
import type { TableRestoreRules } from './restore-rules';

export const usage = (): string => `Usage: npm run backup -- FILE    writes every row of the store to FILE while the service runs
       npm run restore -- FILE   restores FILE into an empty store, migrating it first
The store is the one DATABASE_URL names, as for the service. A backup of either store
restores into either: a SQLite backup restored into MySQL moves the embedded store to production.`;

/** Wrong use of the command line itself: one line, exit code 2. */
export class UsageError extends Error {}

export interface CliOutput extends Progress {
  /** The summary, on stdout. */
  line(text: string): void;
}

/** The store as a summary names it: a MySQL URL without its password (up to the last `@`, so a stray one in it leaks nothing). */
export function describeStore(databaseUrl: string): string {
  return databaseUrl.replace(/^([a-z]+:\/\/[^:/@]*):.*@/, '$1@');
}

function fileArgument(command: string, argv: string[]): string {
  let positionals: string[];
  try {
    ({ positionals } = parseArgs({ args: argv, allowPositionals: true, options: {} }));
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0]);
  }
  if (positionals.length === 0) throw new UsageError(`${command} needs a FILE`);
  if (positionals.length > 1) throw new UsageError(`unexpected argument "${positionals[1]}"`);
  return positionals[0];
}

/**
 * `backup FILE` or `restore FILE` on the store of `databaseUrl`, read only once
 * the arguments are known good; a restore checks each table's rows against its
 * module's `rules`.
 */
export async function runBackupCli(
  command: string | undefined,
  argv: string[],
  databaseUrl: () => string,
  out: CliOutput,
  rules: readonly TableRestoreRules[],
): Promise<void> {
  if (command !== 'backup' && command !== 'restore') throw new UsageError(command ? `unknown command "${command}"` : 'a command is required');
  const file = fileArgument(command, argv);
  // A file that is not a backup, or holds a row the service would refuse, is refused before the store is even opened.
  const backup = command === 'restore' ? await checkBackupFile(file, rules) : undefined;
  if (backup && !backup.hasChecksum) {
    out.note(`${file} carries no checksum (format version 1): its rows were checked against every rule, its bytes could not be`);
  }
  const url = databaseUrl();
  const dataSource = await new DataSource(createDataSourceOptions(url)).initialize();
  try {
    if (backup) {
      await restoreStore(dataSource, file, backup, out, rules);
      const { header, trailer } = backup;
      out.line(`Restored ${file} (${header.store}, taken ${header.startedAt}) into ${describeStore(url)}: ${describeRows(trailer.rows)}`);
    } else {
      const { rows } = await backUpStore(dataSource, file, out);
      out.line(`Backed up ${describeStore(url)} to ${file}: ${describeRows(rows)}`);
    }
  } finally {
    await dataSource.destroy();
  }
}
