import { Global, Logger, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { createDataSourceOptions } from './database-options';
import { runMigrations } from './run-migrations';
import { TypeOrmUnitOfWork } from './typeorm-unit-of-work';
import { UnitOfWork } from './unit-of-work';

/** The DataSource, migrated before the first request, and the unit of work the repositories share. */
@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [AppConfig],
      // Each module registers its own entities with TypeOrmModule.forFeature, so adding a module edits no list here.
      useFactory: (config: AppConfig) => ({ ...createDataSourceOptions(config.databaseUrl, [], config.databaseReplicaUrls), autoLoadEntities: true }),
      // The schema must be current before the first request, so migrations run as the pool opens.
      dataSourceFactory: async (options) => {
        const dataSource = await new DataSource(options!).initialize();
        const applied = await runMigrations(dataSource);
        if (applied.length) new Logger('Database').log(`Applied migrations: ${applied.join(', ')}`);
        return dataSource;
      },
    }),
  ],
  providers: [TypeOrmUnitOfWork, { provide: UnitOfWork, useExisting: TypeOrmUnitOfWork }],
  exports: [TypeOrmUnitOfWork, UnitOfWork],
})
export class DatabaseModule {}
