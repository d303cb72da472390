import { Injectable } from '@nestjs/common';
import { TypeOrmUnitOfWork } from '../../database/typeorm-unit-of-work';
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
  constructor(private readonly unitOfWork: TypeOrmUnitOfWork) {
    super();
  }

  async isHeld(petId: number): Promise<boolean> {
    return (await this.unitOfWork.query(HELD, [petId])).length > 0;
  }
}
