import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../config/app-config';
import { ApiKeyAuthenticator } from './application/api-key-authenticator';
import { ApiKeysService } from './application/api-keys.service';
import { AuthenticationService } from './application/authentication.service';
import { KeyUsageRecorder } from './application/key-usage-recorder';
import { PlanTable } from './application/plan-table';
import { ApiKeyRepository } from './domain/api-key.repository';
import { AccessGuard } from './http/access.guard';
import { AuthenticationGuard } from './http/authentication.guard';
import { AccountOrmEntity } from './infrastructure/account.orm-entity';
import { ApiKeyOrmEntity } from './infrastructure/api-key.orm-entity';
import { TypeOrmApiKeyRepository } from './infrastructure/typeorm-api-key.repository';

/**
 * API keys and bearer authentication. Its two guards are exported, not
 * registered here: AppModule orders the global guards (authentication, rate limits, access).
 */
@Module({
  imports: [TypeOrmModule.forFeature([AccountOrmEntity, ApiKeyOrmEntity])],
  providers: [
    { provide: PlanTable, inject: [AppConfig], useFactory: (config: AppConfig) => PlanTable.fromOverrides(config.rateLimitPlans) },
    ApiKeysService,
    ApiKeyAuthenticator,
    AuthenticationService,
    KeyUsageRecorder,
    AuthenticationGuard,
    AccessGuard,
    { provide: ApiKeyRepository, useClass: TypeOrmApiKeyRepository },
  ],
  exports: [ApiKeysService, AuthenticationGuard, AccessGuard],
})
export class AuthModule {}
