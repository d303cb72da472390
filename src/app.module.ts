import { type DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuthModule } from './auth/auth.module';
import { AccessGuard } from './auth/http/access.guard';
import type { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { ErrorsModule } from './errors/errors.module';
import { HttpModule } from './http/http.module';
import { OpsModule } from './ops/ops.module';
import { PetsModule } from './pets/pets.module';
// After the pets: each module's scopes are listed in the order their modules load.
import { OrderHoldsModule } from './orders/order-holds.module';
import { OrdersModule } from './orders/orders.module';
import { PlanThrottlerGuard } from './rate-limit/http/plan-throttler.guard';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { UsageModule } from './usage/usage.module';

/** The service: its modules on the configuration main.ts loaded, and what every route goes through. */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [ConfigModule.forRoot(config), HttpModule, DatabaseModule, ErrorsModule, OpsModule, AuthModule, RateLimitModule, UsageModule, PetsModule.withHolds(OrderHoldsModule), OrdersModule],
      providers: [
        AccessGuard,
        // Global guards run in the order listed, for every route: the rate limits' one decision counts the request
        // against its caller (429) and gives what the access check will let in one of its places in flight (429 past
        // the cap), and a route that is not @Public() needs a key with the route's scope (401, 403).
        { provide: APP_GUARD, useExisting: PlanThrottlerGuard },
        { provide: APP_GUARD, useExisting: AccessGuard },
      ],
    };
  }
}
