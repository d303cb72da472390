import { Global, Logger, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { databaseBoundsOf } from './database-bounds';
import { PrimaryReads } from './database-reads';
import { createDataSourceOptions, unboundedPrimaryOf } from './database-options';
import { runMigrations } from './run-migrations';
import { TransactionalUnitOfWork } from './transactional-unit-of-work';
import { transactionsModule } from './transactions';
import { UnitOfWork } from './unit-of-work';

/** The DataSource, migrated before the first request, its transactions (TransactionHost, global) and the unit of work the repositories share. */
@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [AppConfig],
      // Each module registers its own entities with TypeOrmModule.forFeature, so adding a module edits no list here.
      useFactory: (config: AppConfig) => ({
        ...createDataSourceOptions(config.databaseUrl, [], config.databaseReplicaUrls, databaseBoundsOf(config)),
        autoLoadEntities: true,
        // Never retried here: the module logs each try with a stack trace; the server has waited for its store before it builds (docs/adr/0050).
        toRetry: () => false,
      }),
      // The schema must be current before the first request; on MySQL migrations run first, on a DataSource of their own, as one may outlast the request bounds.
      dataSourceFactory: async (options) => {
        const serving = new DataSource(options!);
        const migrator = options!.type === 'mysql' ? new DataSource(unboundedPrimaryOf(options!)) : serving;
        await migrator.initialize();
        try {
          const applied = await runMigrations(migrator);
          if (applied.length) new Logger('Database').log(`Applied migrations: ${applied.join(', ')}`);
        } finally {
          if (migrator !== serving) await migrator.destroy();
        }
        return serving.isInitialized ? serving : serving.initialize();
      },
    }),
    transactionsModule(),
  ],
  providers: [
    { provide: UnitOfWork, useClass: TransactionalUnitOfWork },
    // Reads on a pool of their own, so writes stalled on a lock never keep them waiting (docs/adr/0054).
    { provide: PrimaryReads, inject: [DataSource, AppConfig], useFactory: (dataSource: DataSource, config: AppConfig) => PrimaryReads.open(dataSource, config.databaseUrl, databaseBoundsOf(config)) },
  ],
  exports: [UnitOfWork, PrimaryReads],
})
export class DatabaseModule {}
