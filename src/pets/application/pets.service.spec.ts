import { Test } from '@nestjs/testing';
import { OpsMetrics } from '../../ops/metrics';
import { Pet } from '../domain/pet';
import { PetNotFoundError } from '../domain/pet.errors';
import { PetPageQuery, PetRepository } from '../domain/pet.repository';
import { PetsService } from './pets.service';

class InMemoryPetRepository extends PetRepository {
  readonly pets: Pet[] = [];

  async create(pet: Omit<Pet, 'id'>): Promise<Pet> {
    const stored = { id: this.pets.length + 1, ...pet };
    this.pets.push(stored);
    return stored;
  }

  async findById(id: number): Promise<Pet | null> {
    return this.pets.find((pet) => pet.id === id) ?? null;
  }

  async findPage({ limit, status, afterId = 0 }: PetPageQuery): Promise<Pet[]> {
    return this.pets.filter((pet) => pet.id > afterId && (!status || pet.status === status)).slice(0, limit);
  }
}

describe('PetsService', () => {
  let service: PetsService;
  const metrics = { countPetCreated: jest.fn() };

  beforeEach(async () => {
    metrics.countPetCreated.mockReset();
    const moduleRef = await Test.createTestingModule({
      providers: [PetsService, { provide: PetRepository, useValue: new InMemoryPetRepository() }, { provide: OpsMetrics, useValue: metrics }],
    }).compile();
    service = moduleRef.get(PetsService);
  });

  it('gives a new pet the status available when none is given', async () => {
    await expect(service.create({ name: 'Rex', categoryId: 1 })).resolves.toEqual({
      id: 1,
      name: 'Rex',
      categoryId: 1,
      status: 'available',
    });
  });

  it('counts a created pet in pets_created_total once it is stored, and nothing when the store fails', async () => {
    await service.create({ name: 'Rex', categoryId: 1 });
    expect(metrics.countPetCreated).toHaveBeenCalledTimes(1);
    const failing = new PetsService({ create: () => Promise.reject(new Error('store down')) } as unknown as PetRepository, metrics as unknown as OpsMetrics);
    await expect(failing.create({ name: 'Rex', categoryId: 1 })).rejects.toThrow('store down');
    expect(metrics.countPetCreated).toHaveBeenCalledTimes(1);
  });

  it('keeps a given status', async () => {
    await expect(service.create({ name: 'Tom', categoryId: 2, status: 'sold' })).resolves.toMatchObject({ status: 'sold' });
  });

  it('throws PetNotFoundError, code not_found, for an unknown id', async () => {
    await expect(service.get(42)).rejects.toThrow(PetNotFoundError);
    await expect(service.get(42)).rejects.toMatchObject({ code: 'not_found', petId: 42 });
  });

  it('pages by id: nextAfterId is set only when more pets follow', async () => {
    for (let i = 0; i < 5; i++) await service.create({ name: `p${i}`, categoryId: 1 });
    const first = await service.list({ limit: 2 });
    expect(first.pets.map((p) => p.id)).toEqual([1, 2]);
    expect(first.nextAfterId).toBe(2);
    const last = await service.list({ limit: 3, afterId: 2 });
    expect(last.pets.map((p) => p.id)).toEqual([3, 4, 5]);
    expect(last.nextAfterId).toBeUndefined();
  });

  it('filters by status across pages', async () => {
    await service.create({ name: 'a', categoryId: 1, status: 'sold' });
    await service.create({ name: 'b', categoryId: 1 });
    await service.create({ name: 'c', categoryId: 1, status: 'sold' });
    const page = await service.list({ limit: 1, status: 'sold' });
    expect(page.pets.map((p) => p.name)).toEqual(['a']);
    const next = await service.list({ limit: 1, status: 'sold', afterId: page.nextAfterId });
    expect(next.pets.map((p) => p.name)).toEqual(['c']);
    expect(next.nextAfterId).toBeUndefined();
  });
});
