import { Pet } from './pet';
import { PetStatus } from './pet-status';

export interface PetPageQuery {
  readonly limit: number;
  readonly status?: PetStatus;
  /** Return only pets whose id is greater than this one (keyset pagination). */
  readonly afterId?: number;
}

/**
 * How recent a read's view must be. `latest`: every pet created so far.
 * `may-lag`: it may miss pets created in the last seconds (a read replica
 * answers), which spares the store that takes the writes.
 */
export type ReadFreshness = 'latest' | 'may-lag';

/** Port to the pet store; the abstract class is also the injection token. */
export abstract class PetRepository {
  abstract create(pet: Omit<Pet, 'id'>): Promise<Pet>;
  /** Never misses an existing pet, whatever the freshness: a pet missing from a lagging view is looked for in the latest. */
  abstract findById(id: number, freshness: ReadFreshness): Promise<Pet | null>;
  /** Pets in ascending id order, at most `limit` of them. */
  abstract findPage(query: PetPageQuery, freshness: ReadFreshness): Promise<Pet[]>;
  /** Writes `next` only if the stored pet is still exactly `current`, in one statement; false when it is not (changed or gone). */
  abstract replace(current: Pet, next: Pet): Promise<boolean>;
  /** Deletes the pet only if it is still exactly `current`; false when it is not. Its id is never handed out again. */
  abstract remove(current: Pet): Promise<boolean>;
  /** How many pets have each status; a status no pet has counts 0. */
  abstract countByStatus(freshness: ReadFreshness): Promise<Record<PetStatus, number>>;
}
