import { Module } from '@nestjs/common';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { ErrorsModule } from './errors/errors.module';
import { PetsModule } from './pets/pets.module';

@Module({
  imports: [ConfigModule, DatabaseModule, ErrorsModule, PetsModule],
})
export class AppModule {}
