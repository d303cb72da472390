import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { PetsService } from './application/pets.service';
import { PetRepository } from './domain/pet.repository';
import { PetsController } from './http/pets.controller';
import { PetOrmEntity } from './infrastructure/pet.orm-entity';
import { TypeOrmPetRepository } from './infrastructure/typeorm-pet.repository';

@Module({
  imports: [TypeOrmModule.forFeature([PetOrmEntity]), IdempotencyModule],
  controllers: [PetsController],
  providers: [PetsService, { provide: PetRepository, useClass: TypeOrmPetRepository }],
})
export class PetsModule {}
