import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuthModule } from './auth/auth.module';
import { BearerAuthGuard } from './auth/http/bearer-auth.guard';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { ErrorsModule } from './errors/errors.module';
import { PetsModule } from './pets/pets.module';

@Module({
  imports: [ConfigModule, DatabaseModule, ErrorsModule, AuthModule, PetsModule],
  providers: [
    // Global guards run in the order listed here.
    { provide: APP_GUARD, useExisting: BearerAuthGuard },
  ],
})
export class AppModule {}
