import { Module } from '@nestjs/common';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { ErrorsModule } from './errors/errors.module';
import { OpsModule } from './ops/ops.module';
import { PetsModule } from './pets/pets.module';

@Module({
  imports: [ConfigModule, DatabaseModule, ErrorsModule, OpsModule, PetsModule],
})
export class AppModule {}
