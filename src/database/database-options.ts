import { existsSync, mkdirSync } from 'node:fs';
import { dirname, extname, join, resolve } from 'node:path';
import { DataSourceOptions } from 'typeorm';
import { DatabaseBounds, databaseBoundsSubscriber } from './database-bounds';
import { SqliteStatementGate } from './sqlite-statement-gate';

export type DatabaseKind = 'sqlite' | 'mysql';

export function databaseKind(databaseUrl: string): DatabaseKind {
  return databaseUrl.startsWith('sqlite:') ? 'sqlite' : 'mysql';
}

/**
 * Every migration file in the store's folder, so a module adds its migration
 * by writing the file. Matched by this file's own extension: `.ts` under
 * ts-node and jest, `.js` in dist/, never both.
 */
function migrationsOf(kind: DatabaseKind): string[] {
  return [join(__dirname, 'migrations', kind, `*${extname(__filename)}`)];
}

/** How long a replica that refused a connection stays out of TypeORM's pool cluster before it is tried again. */
export const REPLICA_RETRY_MS = 1_000;

/** Connections in each MySQL pool: the writes' pool and the reads' own (docs/adr/0054). */
export const POOL_SIZE = 10;

/** Without request bounds (migrations, the command lines), the longest a new MySQL connection may take: a server that does not answer is said within seconds. */
export const CONNECT_TIMEOUT_MS = 4_000;

/**
 * The one place that turns DATABASE_URL (and DATABASE_REPLICA_URLS) into
 * TypeORM options, with the entities the caller names (none for migrations
 * and raw statements): the app and ormconfig.ts both use it.
 * With replicas, TypeORM's own `replication` option holds them: every query
 * stays on the primary unless it asks for a 'slave' query runner, so only the
 * reads that choose a replica run there, and migrations never do.
 * With `bounds` (the service's pool), no MySQL wait outlasts them
 * (docs/adr/0038); without (migrations, the CLI), a statement runs as long as
 * it takes.
 */
export function createDataSourceOptions(
  databaseUrl: string,
  entities: DataSourceOptions['entities'] = [],
  replicaUrls: readonly string[] = [],
  bounds?: DatabaseBounds,
): DataSourceOptions {
  const common = { entities, synchronize: false, migrationsRun: false, logging: false } as const;
  if (databaseKind(databaseUrl) === 'sqlite') {
    const path = databaseUrl.slice('sqlite:'.length);
    const database = path === ':memory:' ? path : resolve(path);
    if (database !== ':memory:') makeFolder(dirname(database));
    return {
      ...common,
      type: 'better-sqlite3',
      database,
      migrations: migrationsOf('sqlite'),
      // TypeORM makes the gate for this DataSource; the unit of work finds it there (SqliteStatementGate).
      subscribers: [SqliteStatementGate],
      // WAL lets readers run while a write is in progress; NORMAL sync is durable in WAL mode.
      prepareDatabase: (db: { pragma(sql: string): unknown }) => {
        db.pragma('journal_mode = WAL');
        db.pragma('synchronous = NORMAL');
        db.pragma('busy_timeout = 5000');
      },
    };
  }
  const url = mysqlUrl(databaseUrl);
  return {
    ...common,
    type: 'mysql',
    ...(replicaUrls.length === 0
      ? { url }
      : {
          replication: {
            master: { url },
            slaves: replicaUrls.map((replica) => ({ url: mysqlUrl(replica) })),
            defaultMode: 'master',
            // A replica that refuses a connection is skipped at once and tried again after a pause; reads fall back to the primary when none is left.
            canRetry: true,
            removeNodeErrorCount: 1,
            restoreNodeTimeout: REPLICA_RETRY_MS,
          },
        }),
    charset: 'utf8mb4',
    timezone: 'Z',
    // BIGINT ids come back as JS numbers; one beyond Number.MAX_SAFE_INTEGER would still arrive as a string.
    supportBigNumbers: true,
    bigNumberStrings: false,
    // mysql2 would capture a stack trace on every query to point a driver error at its caller; TypeORM raises its own error, whose stack is the one logged.
    trace: false,
    migrations: migrationsOf('mysql'),
    poolSize: POOL_SIZE,
    ...(bounds ? { subscribers: [databaseBoundsSubscriber(bounds)], connectTimeout: bounds.acquireTimeoutMs } : { connectTimeout: CONNECT_TIMEOUT_MS }),
  };
}

/**
 * Makes a folder and the folders above it that are missing, one at a time:
 * Node's recursive mkdir spins for ever where a folder cannot be made though
 * its parent exists (under /proc), where this throws that folder's error.
 */
function makeFolder(folder: string): void {
  if (existsSync(folder)) return;
  if (dirname(folder) !== folder) makeFolder(dirname(folder));
  mkdirSync(folder);
}

/** The same MySQL store's primary alone, without the request bounds: for migrations, which may take longer than a request may. */
export function unboundedPrimaryOf(options: DataSourceOptions): DataSourceOptions {
  if (options.type !== 'mysql') throw new Error('Only a MySQL DataSource has request bounds');
  const { replication, subscribers: _subscribers, connectTimeout: _connectTimeout, ...rest } = options;
  return { ...rest, url: replication?.master.url ?? options.url, connectTimeout: CONNECT_TIMEOUT_MS };
}

function mysqlUrl(databaseUrl: string): string {
  return databaseUrl.replace(/^mariadb:/, 'mysql:');
}
