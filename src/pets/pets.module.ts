import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { PetsService } from './application/pets.service';
import { PetRepository } from './domain/pet.repository';
import { DeprecationHeadersMiddleware } from './http/deprecation-headers.middleware';
import { PetsController } from './http/pets.controller';
import { TypeOrmPetRepository } from './infrastructure/typeorm-pet.repository';

@Module({
  controllers: [PetsController],
  providers: [PetsService, { provide: PetRepository, useClass: TypeOrmPetRepository }],
})
export class PetsModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(DeprecationHeadersMiddleware).forRoutes({ path: 'v1/pets/:petId', method: RequestMethod.GET });
  }
}
