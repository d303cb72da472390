import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { ConfigError, loadConfig } from '../config/app-config';
import { createDataSourceOptions, databaseKind } from './database-options';
import { runMigrations } from './run-migrations';

/** `npm run migrate`: brings the configured store's schema up to date and says what it did. */
async function migrate(): Promise<void> {
  const config = loadConfig();
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
  console.error(error instanceof ConfigError ? error.message : `Migration failed: ${(error as Error).message}`);
  process.exit(1);
});
