import { Injectable } from '@nestjs/common';
import { PetHolds } from '../domain/pet-holds';

/**
 * No order holds any pet while the service has no orders: the binding of
 * PetHolds in PetsModule until the orders module provides its own, which
 * reads the placed orders.
 */
@Injectable()
export class NoPetHolds extends PetHolds {
  async isHeld(): Promise<boolean> {
    return false;
  }
}
