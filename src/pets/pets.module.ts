import { Module } from '@nestjs/common';
import { PetsService } from './application/pets.service';
import { PetRepository } from './domain/pet.repository';
import { PetsController } from './http/pets.controller';
import { TypeOrmPetRepository } from './infrastructure/typeorm-pet.repository';

/** The deprecation headers of getPet are a Fastify hook, registered by configureApp (see deprecation-headers.hook.ts). */
@Module({
  controllers: [PetsController],
  providers: [PetsService, { provide: PetRepository, useClass: TypeOrmPetRepository }],
})
export class PetsModule {}
