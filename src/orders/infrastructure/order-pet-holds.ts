import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { query } from '../../database/statements';
import { PetHolds } from '../../pets/domain/pet-holds';

/** A placed order holds its pet's id in active_pet_id; a delivered one keeps it too, but its pet is sold, which is final. */
const HELD = "SELECT 1 AS held FROM orders WHERE active_pet_id = ? AND status = 'placed'";

/**
 * The pets' PetHolds answered from the placed orders, on the primary and inside
 * the unit of work in progress, so a change of the pet reads the orders its own
 * conditional write can no longer miss.
 */
@Injectable()
export class OrderPetHolds extends PetHolds {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {
    super();
  }

  async isHeld(petId: number): Promise<boolean> {
    return (await query(this.txHost.tx, HELD, [petId])).length > 0;
  }
}
