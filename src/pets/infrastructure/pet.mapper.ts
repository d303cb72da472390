import { Pet } from '../domain/pet';
import { PetStatus } from '../domain/pet-status';

/** A row as the hot-path queries select it (columns already aliased). */
export interface PetRow {
  id: number | string;
  name: string;
  categoryId: number | string;
  status: string;
}

export const PetMapper = {
  toDomain(row: PetRow): Pet {
    return {
      id: Number(row.id),
      name: row.name,
      categoryId: Number(row.categoryId),
      status: row.status as PetStatus,
    };
  },
};
