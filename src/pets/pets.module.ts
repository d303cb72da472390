import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../config/app-config';
import { Clock } from '../config/clock';
import { ReadReplicasModule } from '../database/read-replicas.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { OpsMetrics } from '../ops/metrics';
import { PetMetrics } from './application/pet-metrics';
import { PetsService } from './application/pets.service';
import { RecentWriters, recentWritersFor } from './application/recent-writers';
import { PetRepository } from './domain/pet.repository';
import { PetsController } from './http/pets.controller';
import { PetOrmEntity } from './infrastructure/pet.orm-entity';
import { TypeOrmPetRepository } from './infrastructure/typeorm-pet.repository';

@Module({
  imports: [TypeOrmModule.forFeature([PetOrmEntity]), ReadReplicasModule, IdempotencyModule],
  controllers: [PetsController],
  providers: [
    PetsService,
    { provide: PetRepository, useClass: TypeOrmPetRepository },
    { provide: PetMetrics, useExisting: OpsMetrics },
    {
      // A caller's own pets are visible to its reads for as long as a replica in service may lack them.
      provide: RecentWriters,
      inject: [AppConfig, Clock],
      useFactory: recentWritersFor,
    },
  ],
})
export class PetsModule {}
