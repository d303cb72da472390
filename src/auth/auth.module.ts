import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../config/app-config';
import { ApiKeyAuthenticator } from './application/api-key-authenticator';
import { ApiKeysService } from './application/api-keys.service';
import { CallerLookup } from './application/caller-lookup';
import { KeyUsageRecorder } from './application/key-usage-recorder';
import { PlanTable } from './application/plan-table';
import { ApiKeyRepository } from './domain/api-key.repository';
import { BearerAuthGuard } from './http/bearer-auth.guard';
import { AccountOrmEntity } from './infrastructure/account.orm-entity';
import { ApiKeyOrmEntity } from './infrastructure/api-key.orm-entity';
import { TypeOrmApiKeyRepository } from './infrastructure/typeorm-api-key.repository';

/**
 * API keys and bearer authentication. Other modules ask CallerLookup who a
 * request comes from. The guard is exported, not registered globally here:
 * AppModule orders the global guards (rate limits first).
 */
@Module({
  imports: [TypeOrmModule.forFeature([AccountOrmEntity, ApiKeyOrmEntity])],
  providers: [
    { provide: PlanTable, inject: [AppConfig], useFactory: (config: AppConfig) => PlanTable.fromOverrides(config.rateLimitPlans) },
    ApiKeysService,
    ApiKeyAuthenticator,
    CallerLookup,
    KeyUsageRecorder,
    BearerAuthGuard,
    { provide: ApiKeyRepository, useClass: TypeOrmApiKeyRepository },
  ],
  exports: [ApiKeysService, CallerLookup, BearerAuthGuard],
})
export class AuthModule {}
