import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuthModule } from './auth/auth.module';
import { AccessGuard } from './auth/http/access.guard';
import { AuthenticationGuard } from './auth/http/authentication.guard';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { ErrorsModule } from './errors/errors.module';
import { OpsModule } from './ops/ops.module';
import { PetsModule } from './pets/pets.module';
import { PlanThrottlerGuard } from './rate-limit/http/plan-throttler.guard';
import { RateLimitModule } from './rate-limit/rate-limit.module';

@Module({
  imports: [ConfigModule, DatabaseModule, ErrorsModule, OpsModule, AuthModule, RateLimitModule, PetsModule],
  providers: [
    // Global guards run in the order listed, for every route: who calls (never refuses), then the
    // rate limits count the request against that caller, then a route that is not @Public() needs a key.
    { provide: APP_GUARD, useExisting: AuthenticationGuard },
    { provide: APP_GUARD, useExisting: PlanThrottlerGuard },
    { provide: APP_GUARD, useExisting: AccessGuard },
  ],
})
export class AppModule {}
