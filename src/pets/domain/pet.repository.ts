import { Pet } from './pet';
import { PetStatus } from './pet-status';

export interface PetPageQuery {
  readonly limit: number;
  readonly status?: PetStatus;
  /** Return only pets whose id is greater than this one (keyset pagination). */
  readonly afterId?: number;
}

/** Port to the pet store; the abstract class is also the injection token. */
export abstract class PetRepository {
  abstract create(pet: Omit<Pet, 'id'>): Promise<Pet>;
  abstract findById(id: number): Promise<Pet | null>;
  /** Pets in ascending id order, at most `limit` of them. */
  abstract findPage(query: PetPageQuery): Promise<Pet[]>;
}
