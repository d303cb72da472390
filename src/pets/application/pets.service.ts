import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '../../database/unit-of-work';
import { changePet, isSamePet, NewPet, Pet, PetChanges, preparePet } from '../domain/pet';
import { PetBusyError, PetNotFoundError, PetPreconditionFailedError, PetReservedError } from '../domain/pet.errors';
import { PetHolds } from '../domain/pet-holds';
import { PetRepository, ReadFreshness } from '../domain/pet.repository';
import { PetStatus } from '../domain/pet-status';
import { PetMetrics } from './pet-metrics';
import { CallerId, RecentWriters } from './recent-writers';

export interface PetPage {
  readonly pets: Pet[];
  /** Id to continue after, present when more pets follow. */
  readonly nextAfterId?: number;
}

/** How a change is made: by whom (for reading one's own writes), and only if the pet as it is now meets `precondition`. */
export interface ChangeOptions {
  readonly writer?: CallerId;
  /** The caller's condition on the current pet (If-Match); absent: the change applies to whatever is current. */
  readonly precondition?: (current: Pet) => boolean;
}

/** Rounds a change without a precondition retries when the pet changed between its read and its write. */
const CHANGE_ROUNDS = 3;

/**
 * The catalogue's use cases. Reads may come from a lagging copy of the store,
 * except for a caller who created a pet within the copies' lag bound: that
 * caller reads the latest, so its own pets are always there.
 */
@Injectable()
export class PetsService {
  constructor(
    private readonly pets: PetRepository,
    private readonly metrics: PetMetrics,
    private readonly writers: RecentWriters,
    private readonly holds: PetHolds,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  async create(input: NewPet, writer?: CallerId): Promise<Pet> {
    const pet = await this.pets.create(preparePet(input));
    this.metrics.countPetCreated();
    this.writers.noteWrite(writer);
    return pet;
  }

  async get(id: number, reader?: CallerId): Promise<Pet> {
    const pet = await this.pets.findById(id, this.freshnessFor(reader));
    if (!pet) throw new PetNotFoundError(id);
    return pet;
  }

  async list(query: { limit: number; status?: PetStatus; afterId?: number }, reader?: CallerId): Promise<PetPage> {
    // One extra row tells whether another page follows without a COUNT query.
    const rows = await this.pets.findPage({ ...query, limit: query.limit + 1 }, this.freshnessFor(reader));
    if (rows.length <= query.limit) return { pets: rows };
    const pets = rows.slice(0, query.limit);
    return { pets, nextAfterId: pets[pets.length - 1].id };
  }

  /**
   * Applies a merge patch. Read, judged (404, 412, 409) and written with a
   * statement conditional on the pet as read, so a change never lands on a
   * pet other than the one judged: of two changes made from the same read,
   * the second finds the pet changed and, with a precondition, fails 412.
   */
  async update(id: number, changes: PetChanges, options: ChangeOptions = {}): Promise<Pet> {
    return this.change(id, options, async (current) => {
      const next = changePet(current, changes);
      if (isSamePet(next, current)) return { done: true, pet: current };
      const write = () => this.pets.replace(current, next);
      return { done: next.status === current.status ? await write() : await this.writeUnlessHeld(id, write), pet: next };
    });
  }

  /** Deletes a pet no placed order holds, judged and written as `update` is. */
  async remove(id: number, options: ChangeOptions = {}): Promise<void> {
    await this.change(id, options, async (current) => ({ done: await this.writeUnlessHeld(id, () => this.pets.remove(current)), pet: current }));
  }

  async inventory(reader?: CallerId): Promise<Record<PetStatus, number>> {
    return this.pets.countByStatus(this.freshnessFor(reader));
  }

  private async change(id: number, { writer, precondition }: ChangeOptions, write: (current: Pet) => Promise<{ done: boolean; pet: Pet }>): Promise<Pet> {
    for (let round = 0; round < CHANGE_ROUNDS; round++) {
      const current = await this.pets.findById(id, 'latest');
      if (!current) throw new PetNotFoundError(id);
      if (precondition && !precondition(current)) throw new PetPreconditionFailedError(id);
      const { done, pet } = await write(current);
      if (done) {
        this.writers.noteWrite(writer);
        return pet;
      }
      // The pet changed since it was read: the condition was on that version, so it no longer holds.
      if (precondition) throw new PetPreconditionFailedError(id);
    }
    throw new PetBusyError(id);
  }

  /**
   * Refuses the write while a placed order holds the pet: asked before it, so
   * a held pet is not written, and again after it in the same unit, as the
   * write takes the pet's row that a placement takes first: an order placed
   * between the two questions (after the pet went back to the status read) is
   * seen there, and its pet left as the order set it.
   */
  private async writeUnlessHeld(id: number, write: () => Promise<boolean>): Promise<boolean> {
    if (await this.holds.isHeld(id)) throw new PetReservedError(id);
    return this.unitOfWork.run(async () => {
      const done = await write();
      if (done && (await this.holds.isHeld(id))) throw new PetReservedError(id);
      return done;
    });
  }

  private freshnessFor(reader: CallerId | undefined): ReadFreshness {
    return this.writers.wroteRecently(reader) ? 'latest' : 'may-lag';
  }
}
