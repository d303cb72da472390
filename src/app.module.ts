import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuthModule } from './auth/auth.module';
import { BearerAuthGuard } from './auth/http/bearer-auth.guard';
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
    // Global guards run in the order listed. Rate limits come first, so that a
    // refused key is still counted (against its address) and its 401 carries the headers.
    { provide: APP_GUARD, useExisting: PlanThrottlerGuard },
    { provide: APP_GUARD, useExisting: BearerAuthGuard },
  ],
})
export class AppModule {}
