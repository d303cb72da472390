import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfig } from './src/config/app-config';
import { ApiKeyOrmEntity } from './src/auth/infrastructure/api-key.orm-entity';
import { createDataSourceOptions } from './src/database/database-options';
import { PetOrmEntity } from './src/pets/infrastructure/pet.orm-entity';

/**
 * For the TypeORM CLI (`npm run typeorm -- migration:show`). It reads the same
 * DATABASE_URL through the same options factory as the service.
 */
export default new DataSource(createDataSourceOptions(loadConfig().databaseUrl, [PetOrmEntity, ApiKeyOrmEntity]));
