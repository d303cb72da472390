import { Global, Logger, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { createDataSourceOptions } from './database-options';
import { ORM_ENTITIES } from './entities';
import { runMigrations } from './run-migrations';

/** The DataSource, migrated before the first request. */
@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [AppConfig],
      // Every entity, as the TypeORM CLI sees them (src/database/entities.ts); feature modules take their repositories with forFeature.
      useFactory: (config: AppConfig) => createDataSourceOptions(config.databaseUrl, ORM_ENTITIES, config.databaseReplicaUrls),
      // The schema must be current before the first request, so migrations run as the pool opens.
      dataSourceFactory: async (options) => {
        const dataSource = await new DataSource(options!).initialize();
        const applied = await runMigrations(dataSource);
        if (applied.length) new Logger('Database').log(`Applied migrations: ${applied.join(', ')}`);
        return dataSource;
      },
    }),
  ],
})
export class DatabaseModule {}
