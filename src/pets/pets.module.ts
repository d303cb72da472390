import { DynamicModule, Module, Type } from '@nestjs/common';
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
import { InventoryController } from './http/inventory.controller';
import { PetsController } from './http/pets.controller';
import { PetOrmEntity } from './infrastructure/pet.orm-entity';
import { TypeOrmPetRepository } from './infrastructure/typeorm-pet.repository';

@Module({})
export class PetsModule {
  /**
   * `holds` provides and exports the PetHolds port (the orders module's reading
   * of the placed orders), so the catalogue knows no module that sells its pets.
   */
  static withHolds(holds: Type): DynamicModule {
    return {
      module: PetsModule,
      imports: [TypeOrmModule.forFeature([PetOrmEntity]), ReadReplicasModule, IdempotencyModule, holds],
      controllers: [PetsController, InventoryController],
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
    };
  }
}
