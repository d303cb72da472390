import { DataSource, DataSourceOptions, MigrationInterface } from 'typeorm';
import { createDataSourceOptions } from '../../src/database/database-options';
import { runMigrations } from '../../src/database/run-migrations';
import { createTestDatabase, TestStore } from './test-database';

export interface MigratedDataSource {
  readonly dataSource: DataSource;
  /** Closes the DataSource and drops its database. */
  close(): Promise<void>;
}

/** A fresh database on `store`, opened with the service's own options and migrated, for specs of one adapter. */
export async function openMigratedDataSource(store: TestStore, entities?: DataSourceOptions['entities']): Promise<MigratedDataSource> {
  const database = await createTestDatabase(store);
  const dataSource = new DataSource(createDataSourceOptions(database.url, entities));
  const close = async () => {
    if (dataSource.isInitialized) await dataSource.destroy();
    await database.drop();
  };
  try {
    await dataSource.initialize();
    await runMigrations(dataSource);
  } catch (error) {
    await close();
    throw error;
  }
  return { dataSource, close };
}

export type MigrationClass = new () => MigrationInterface;

/**
 * The migrations `options` run, as classes in their order: a DataSource finds
 * them in their folder as the service's does, so a spec can open a store as it
 * stood before one of them.
 */
export async function migrationClasses(options: DataSourceOptions): Promise<MigrationClass[]> {
  const loader = await new DataSource(options).initialize();
  try {
    return loader.migrations.map((migration) => migration.constructor as MigrationClass);
  } finally {
    await loader.destroy();
  }
}
