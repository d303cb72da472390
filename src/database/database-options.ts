import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DataSourceOptions } from 'typeorm';
import { CreateApiKeys1763683300000 as MysqlCreateApiKeys } from './migrations/mysql/1763683300000-CreateApiKeys';
import { ApiKeyLifecycle1763683350000 as MysqlApiKeyLifecycle } from './migrations/mysql/1763683350000-ApiKeyLifecycle';
import { CreatePets1763683200000 as MysqlCreatePets } from './migrations/mysql/1763683200000-CreatePets';
import { CreateIdempotencyRecords1763769600000 as MysqlCreateIdempotencyRecords } from './migrations/mysql/1763769600000-CreateIdempotencyRecords';
import { CreateAccounts1763856000000 as MysqlCreateAccounts } from './migrations/mysql/1763856000000-CreateAccounts';
import { IdempotencyClaimTokens1764115200000 as MysqlIdempotencyClaimTokens } from './migrations/mysql/1764115200000-IdempotencyClaimTokens';
import { CreateAccounts1763856000000 as SqliteCreateAccounts } from './migrations/sqlite/1763856000000-CreateAccounts';
import { CreateApiKeys1763683300000 as SqliteCreateApiKeys } from './migrations/sqlite/1763683300000-CreateApiKeys';
import { ApiKeyLifecycle1763683350000 as SqliteApiKeyLifecycle } from './migrations/sqlite/1763683350000-ApiKeyLifecycle';
import { CreatePets1763683200000 as SqliteCreatePets } from './migrations/sqlite/1763683200000-CreatePets';
import { CreateIdempotencyRecords1763769600000 as SqliteCreateIdempotencyRecords } from './migrations/sqlite/1763769600000-CreateIdempotencyRecords';
import { IdempotencyClaimTokens1764115200000 as SqliteIdempotencyClaimTokens } from './migrations/sqlite/1764115200000-IdempotencyClaimTokens';

// Listed explicitly rather than globbed, so they load the same from src/ (tests, CLI) and dist/.
const MIGRATIONS = {
  sqlite: [SqliteCreatePets, SqliteCreateApiKeys, SqliteApiKeyLifecycle, SqliteCreateIdempotencyRecords, SqliteCreateAccounts, SqliteIdempotencyClaimTokens],
  mysql: [MysqlCreatePets, MysqlCreateApiKeys, MysqlApiKeyLifecycle, MysqlCreateIdempotencyRecords, MysqlCreateAccounts, MysqlIdempotencyClaimTokens],
};

export type DatabaseKind = 'sqlite' | 'mysql';

export function databaseKind(databaseUrl: string): DatabaseKind {
  return databaseUrl.startsWith('sqlite:') ? 'sqlite' : 'mysql';
}

/** The one place that turns DATABASE_URL into TypeORM options: the app and ormconfig.ts both use it. */
export function createDataSourceOptions(databaseUrl: string, entities: DataSourceOptions['entities'] = []): DataSourceOptions {
  const common = { entities, synchronize: false, migrationsRun: false, logging: false } as const;
  if (databaseKind(databaseUrl) === 'sqlite') {
    const path = databaseUrl.slice('sqlite:'.length);
    const database = path === ':memory:' ? path : resolve(path);
    if (database !== ':memory:') mkdirSync(dirname(database), { recursive: true });
    return {
      ...common,
      type: 'better-sqlite3',
      database,
      migrations: MIGRATIONS.sqlite,
      // WAL lets readers run while a write is in progress; NORMAL sync is durable in WAL mode.
      prepareDatabase: (db: { pragma(sql: string): unknown }) => {
        db.pragma('journal_mode = WAL');
        db.pragma('synchronous = NORMAL');
        db.pragma('busy_timeout = 5000');
      },
    };
  }
  return {
    ...common,
    type: 'mysql',
    url: databaseUrl.replace(/^mariadb:/, 'mysql:'),
    charset: 'utf8mb4',
    timezone: 'Z',
    // BIGINT ids come back as JS numbers; one beyond Number.MAX_SAFE_INTEGER would still arrive as a string.
    supportBigNumbers: true,
    bigNumberStrings: false,
    migrations: MIGRATIONS.mysql,
    extra: { connectionLimit: 10 },
  };
}
