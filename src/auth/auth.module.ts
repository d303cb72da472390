import { Global, Logger, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../config/app-config';
import { CallerLookup } from '../http/caller-lookup';
import { RouteAccess } from '../http/route-access';
import { ApiKeyAuthenticator, KeyCacheBounds } from './application/api-key-authenticator';
import { ApiKeysService } from './application/api-keys.service';
import { AuthenticationService } from './application/authentication.service';
import { KeyChangeListener } from './http/key-change-listener';
import { KeyUsageRecorder } from './application/key-usage-recorder';
import { PlanTable } from './application/plan-table';
import { ApiKeyRepository } from './domain/api-key.repository';
import { KeyChangeChannel, NoKeyChangeChannel } from './domain/key-change';
import { ScopedRouteAccess } from './http/access.guard';
import { BearerCallerLookup } from './http/bearer-caller-lookup';
import { AccountOrmEntity } from './infrastructure/account.orm-entity';
import { ApiKeyOrmEntity } from './infrastructure/api-key.orm-entity';
import { TypeOrmApiKeyRepository } from './infrastructure/typeorm-api-key.repository';

/**
 * API keys and bearer authentication. It binds the request's CallerLookup
 * and RouteAccess, global so the rate limits ask them without knowing auth. Its AccessGuard is
 * provided by AppModule, which orders the global guards.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([AccountOrmEntity, ApiKeyOrmEntity])],
  providers: [
    { provide: PlanTable, inject: [AppConfig], useFactory: (config: AppConfig) => PlanTable.fromOverrides(config.rateLimitPlans) },
    ApiKeysService,
    { provide: KeyCacheBounds, useValue: new KeyCacheBounds() },
    ApiKeyAuthenticator,
    AuthenticationService,
    KeyUsageRecorder,
    BearerCallerLookup,
    { provide: CallerLookup, useExisting: BearerCallerLookup },
    { provide: RouteAccess, useClass: ScopedRouteAccess },
    { provide: ApiKeyRepository, useClass: TypeOrmApiKeyRepository },
    { provide: KeyChangeChannel, inject: [AppConfig], useFactory: createKeyChangeChannel },
    KeyChangeListener,
  ],
  exports: [ApiKeysService, CallerLookup, RouteAccess],
})
export class AuthModule {}

/** Redis pub/sub where the rate limits share Redis, so a key change reaches every instance at once; else none. */
function createKeyChangeChannel(config: AppConfig): KeyChangeChannel {
  if (!config.redisUrl && !config.redisClusterNodes) return new NoKeyChangeChannel();
  // Loaded only when configured, as the rate limits' Redis client is.
  const { RedisKeyChangeChannel } = require('./infrastructure/redis-key-change.channel') as typeof import('./infrastructure/redis-key-change.channel');
  const logger = new Logger('ApiKeys');
  return new RedisKeyChangeChannel({
    url: config.redisUrl,
    clusterNodes: config.redisClusterNodes,
    channel: `${config.redisKeyPrefix}key-changes`,
    onError: (message) => logger.warn(message),
  });
}
