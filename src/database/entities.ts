import { AccountOrmEntity } from '../auth/infrastructure/account.orm-entity';
import { ApiKeyOrmEntity } from '../auth/infrastructure/api-key.orm-entity';
import { IdempotencyRecordOrmEntity } from '../idempotency/infrastructure/idempotency-record.orm-entity';
import { PetOrmEntity } from '../pets/infrastructure/pet.orm-entity';

/**
 * Every table's entity, for the one DataSource the service, `npm run migrate`
 * and the TypeORM CLI (ormconfig.ts) all open; feature modules still ask for
 * their repositories with TypeOrmModule.forFeature.
 */
export const ORM_ENTITIES = [AccountOrmEntity, ApiKeyOrmEntity, IdempotencyRecordOrmEntity, PetOrmEntity];
