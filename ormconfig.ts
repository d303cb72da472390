import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfig } from './src/config/app-config';
import { createDataSourceOptions } from './src/database/database-options';
import { ORM_ENTITIES } from './src/database/entities';

/**
 * For the TypeORM CLI (`npm run typeorm -- migration:show`). It reads the same
 * DATABASE_URL (and replicas) through the same options factory, with the same entities, as the service.
 */
const config = loadConfig();
export default new DataSource(createDataSourceOptions(config.databaseUrl, ORM_ENTITIES, config.databaseReplicaUrls));
