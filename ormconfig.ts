import 'reflect-metadata';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { loadConfig } from './src/config/app-config';
import { createDataSourceOptions } from './src/database/database-options';

/**
 * For the TypeORM CLI (`npm run typeorm -- migration:show`). It reads the same
 * DATABASE_URL (and replicas) through the same options factory as the service,
 * and finds each module's entities by their file name, as the service finds
 * them through each module's TypeOrmModule.forFeature.
 */
const config = loadConfig();
export default new DataSource(createDataSourceOptions(config.databaseUrl, [join(__dirname, 'src/**/*.orm-entity.ts')], config.databaseReplicaUrls));
