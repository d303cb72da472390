import { type DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuthModule } from './auth/auth.module';
import { AccessGuard } from './auth/http/access.guard';
import { AuthenticationGuard } from './auth/http/authentication.guard';
import type { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { ErrorsModule } from './errors/errors.module';
import { DeprecationGuard } from './http/deprecation';
import { HttpModule } from './http/http.module';
import { OpsModule } from './ops/ops.module';
import { PetsModule } from './pets/pets.module';
import { PlanThrottlerGuard } from './rate-limit/http/plan-throttler.guard';
import { ConcurrencyCapGuard } from './rate-limit/http/concurrency-cap.guard';
import { RateLimitModule } from './rate-limit/rate-limit.module';

/** The service: its modules on the configuration main.ts loaded, and what every route goes through. */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [ConfigModule.forRoot(config), HttpModule, DatabaseModule, ErrorsModule, OpsModule, AuthModule, RateLimitModule, PetsModule],
      providers: [
        // Global guards run in the order listed, for every route: a deprecated route's headers (refusing
        // nothing), who calls (refusing nothing), the rate limits counting the request against that caller,
        // then a route that is not @Public() needs a key with the route's scope, and what is let in takes one
        // of the caller's places in flight (the concurrency cap), given back when its answer is done.
        { provide: APP_GUARD, useExisting: DeprecationGuard },
        { provide: APP_GUARD, useExisting: AuthenticationGuard },
        { provide: APP_GUARD, useExisting: PlanThrottlerGuard },
        { provide: APP_GUARD, useExisting: AccessGuard },
        { provide: APP_GUARD, useExisting: ConcurrencyCapGuard },
      ],
    };
  }
}
