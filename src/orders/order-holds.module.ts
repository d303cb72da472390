import { Module } from '@nestjs/common';
import { PetHolds } from '../pets/domain/pet-holds';
import { OrderPetHolds } from './infrastructure/order-pet-holds';

/** What the orders module lends the catalogue: whether a placed order holds a pet (PetsModule.withHolds). */
@Module({
  providers: [{ provide: PetHolds, useClass: OrderPetHolds }],
  exports: [PetHolds],
})
export class OrderHoldsModule {}
