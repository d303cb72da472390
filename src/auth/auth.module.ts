import { Module } from '@nestjs/common';
import { ApiKeyAuthenticator } from './application/api-key-authenticator';
import { ApiKeysService } from './application/api-keys.service';
import { ApiKeyRepository } from './domain/api-key.repository';
import { BearerAuthGuard } from './http/bearer-auth.guard';
import { CallerResolver } from './http/caller-resolver';
import { TypeOrmApiKeyRepository } from './infrastructure/typeorm-api-key.repository';

/**
 * API keys and bearer authentication. The guard is exported, not registered
 * globally here: AppModule orders the global guards (rate limits first).
 */
@Module({
  providers: [
    ApiKeysService,
    ApiKeyAuthenticator,
    CallerResolver,
    BearerAuthGuard,
    { provide: ApiKeyRepository, useClass: TypeOrmApiKeyRepository },
  ],
  exports: [ApiKeysService, CallerResolver, BearerAuthGuard],
})
export class AuthModule {}
