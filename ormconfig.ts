import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfig } from './src/config/app-config';
import { createDataSourceOptions } from './src/database/database-options';

/**
 * For the TypeORM CLI (`npm run typeorm -- migration:show`). It reads the same
 * DATABASE_URL through the same options factory, with the same entities, as the service.
 */
export default new DataSource(createDataSourceOptions(loadConfig().databaseUrl));
