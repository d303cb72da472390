// First of all: an older Node is told so in one line, before a native module can crash it.
import '../ops/supported-node';
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { ConfigError, loadConfig } from '../config/app-config';
import { createDataSourceOptions, databaseKind } from './database-options';
import { runMigrations } from './run-migrations';
import { describeDatabaseFailure } from '../ops/startup-checks';

/** Known once the configuration is loaded: a store that cannot be opened is said naming DATABASE_URL. */
let databaseUrl: string | undefined;

/** `npm run migrate`: brings the configured store's schema up to date and says what it did. */
async function migrate(): Promise<void> {
  const config = loadConfig();
  databaseUrl = config.databaseUrl;
  const dataSource = await new DataSource(createDataSourceOptions(config.databaseUrl)).initialize();
  try {
    const applied = await runMigrations(dataSource);
    const store = databaseKind(config.databaseUrl);
    console.log(applied.length ? `Applied ${applied.length} migration(s) on ${store}: ${applied.join(', ')}` : `Schema on ${store} is up to date.`);
  } finally {
    await dataSource.destroy();
  }
}

migrate().catch((error: unknown) => {
  const environment = databaseUrl && describeDatabaseFailure(error, databaseUrl);
  console.error(error instanceof ConfigError ? error.message : environment ? `migrate: ${environment}` : `Migration failed: ${(error as Error).message}`);
  process.exit(1);
});
