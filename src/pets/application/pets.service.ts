import { Injectable } from '@nestjs/common';
import { OpsMetrics } from '../../ops/metrics';
import { NewPet, Pet, preparePet } from '../domain/pet';
import { PetNotFoundError } from '../domain/pet.errors';
import { PetRepository } from '../domain/pet.repository';
import { PetStatus } from '../domain/pet-status';

export interface PetPage {
  readonly pets: Pet[];
  /** Id to continue after, present when more pets follow. */
  readonly nextAfterId?: number;
}

@Injectable()
export class PetsService {
  constructor(
    private readonly pets: PetRepository,
    private readonly metrics: OpsMetrics,
  ) {}

  async create(input: NewPet): Promise<Pet> {
    const pet = await this.pets.create(preparePet(input));
    this.metrics.countPetCreated();
    return pet;
  }

  async get(id: number): Promise<Pet> {
    const pet = await this.pets.findById(id);
    if (!pet) throw new PetNotFoundError(id);
    return pet;
  }

  async list(query: { limit: number; status?: PetStatus; afterId?: number }): Promise<PetPage> {
    // One extra row tells whether another page follows without a COUNT query.
    const rows = await this.pets.findPage({ ...query, limit: query.limit + 1 });
    if (rows.length <= query.limit) return { pets: rows };
    const pets = rows.slice(0, query.limit);
    return { pets, nextAfterId: pets[pets.length - 1].id };
  }
}
