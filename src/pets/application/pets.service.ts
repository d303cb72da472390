import { Injectable } from '@nestjs/common';
import { NewPet, Pet, preparePet } from '../domain/pet';
import { PetNotFoundError } from '../domain/pet.errors';
import { PetRepository, ReadFreshness } from '../domain/pet.repository';
import { PetStatus } from '../domain/pet-status';
import { PetMetrics } from './pet-metrics';
import { CallerId, RecentWriters } from './recent-writers';

export interface PetPage {
  readonly pets: Pet[];
  /** Id to continue after, present when more pets follow. */
  readonly nextAfterId?: number;
}

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

  private freshnessFor(reader: CallerId | undefined): ReadFreshness {
    return this.writers.wroteRecently(reader) ? 'latest' : 'may-lag';
  }
}
