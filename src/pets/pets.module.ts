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
import { PetHolds } from './domain/pet-holds';
import { PetRepository } from './domain/pet.repository';
import { InventoryController } from './http/inventory.controller';
import { PetsController } from './http/pets.controller';
import { NoPetHolds } from './infrastructure/no-pet-holds';
import { PetOrmEntity } from './infrastructure/pet.orm-entity';
import { TypeOrmPetRepository } from './infrastructure/typeorm-pet.repository';

@Module({
  imports: [TypeOrmModule.forFeature([PetOrmEntity]), ReadReplicasModule, IdempotencyModule],
  controllers: [PetsController, InventoryController],
  providers: [
    PetsService,
    { provide: PetRepository, useClass: TypeOrmPetRepository },
    // The seam of the orders module: it binds its own PetHolds, which reads the placed orders, in place of this one.
    { provide: PetHolds, useClass: NoPetHolds },
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
