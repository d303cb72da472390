import { type DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuthModule } from './auth/auth.module';
import { AccessGuard } from './auth/http/access.guard';
import type { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { NODE_READINESS } from './database/failover.module';
import { ReadReplicasModule, REPLICA_READINESS } from './database/read-replicas.module';
import { ErrorsModule } from './errors/errors.module';
import { HttpModule } from './http/http.module';
import { HealthModule } from './ops/health.module';
import { OpsModule } from './ops/ops.module';
import { PetsModule } from './pets/pets.module';
// After the pets: each module's scopes are listed in the order their modules load.
import { OrderHoldsModule } from './orders/order-holds.module';
import { OrdersModule } from './orders/orders.module';
import { PlanThrottlerGuard } from './rate-limit/http/plan-throttler.guard';
import { ConcurrencyCapGuard } from './rate-limit/http/concurrency-cap.guard';
import { RATE_LIMIT_READINESS, RateLimitModule } from './rate-limit/rate-limit.module';
import { UsageModule } from './usage/usage.module';

/** The service: its modules on the configuration main.ts loaded, and what every route goes through. */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [ConfigModule.forRoot(config), HttpModule, DatabaseModule, ErrorsModule, OpsModule, AuthModule, RateLimitModule, UsageModule, PetsModule.withHolds(OrderHoldsModule), OrdersModule,
        // What /readyz checks besides the database, each module's own list.
        HealthModule.forRoot({ imports: [ReadReplicasModule], checks: [RATE_LIMIT_READINESS, REPLICA_READINESS, NODE_READINESS] }),
      ],
      providers: [
        AccessGuard,
        // Global guards run in the order listed, for every route: the rate limits count the request against its
        // caller (429), a route that is not @Public() needs a key with the route's scope (401, 403), and what is let
        // in takes one of the caller's places in flight (429), given back when its answer is done.
        { provide: APP_GUARD, useExisting: PlanThrottlerGuard },
        { provide: APP_GUARD, useExisting: AccessGuard },
        { provide: APP_GUARD, useExisting: ConcurrencyCapGuard },
      ],
    };
  }
}
