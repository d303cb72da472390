import { type DynamicModule, Module } from '@nestjs/common';
import { AuthModule } from './auth/auth.module';
import { AccessGuard } from './auth/http/access.guard';
import type { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { ReadReplicasModule, REPLICA_READINESS } from './database/read-replicas.module';
import { ErrorsModule } from './errors/errors.module';
import { HttpModule } from './http/http.module';
import { HealthModule } from './ops/health.module';
import { OpsModule } from './ops/ops.module';
import { PetsModule } from './pets/pets.module';
// After the pets: each module's scopes are listed in the order their modules load.
import { OrderHoldsModule } from './orders/order-holds.module';
import { OrdersModule } from './orders/orders.module';
import { RATE_LIMIT_READINESS, RateLimitModule } from './rate-limit/rate-limit.module';
import { UsageModule } from './usage/usage.module';

/** The service: its modules on the configuration main.ts loaded. */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [ConfigModule.forRoot(config), HttpModule, DatabaseModule, ErrorsModule, OpsModule, AuthModule, RateLimitModule, UsageModule, PetsModule.withHolds(OrderHoldsModule), OrdersModule,
        // What /readyz checks besides the database, each module's own list.
        HealthModule.forRoot({ imports: [ReadReplicasModule], checks: [RATE_LIMIT_READINESS, REPLICA_READINESS] }),
      ],
      // A global guard, which the request pipeline (request-pipeline.ts) registers with the others in their order.
      providers: [AccessGuard],
    };
  }
}
