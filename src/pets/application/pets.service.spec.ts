import { Test } from '@nestjs/testing';
import { FakeClock } from '../../../test/support/fake-clock';
import { UnitOfWork } from '../../database/unit-of-work';
import { isSamePet, Pet } from '../domain/pet';
import { InvalidTransitionError, PetNotFoundError, PetPreconditionFailedError, PetReservedError } from '../domain/pet.errors';
import { PetHolds } from '../domain/pet-holds';
import { PetStatus } from '../domain/pet-status';
import { PetPageQuery, PetRepository, ReadFreshness } from '../domain/pet.repository';
import { PetMetrics } from './pet-metrics';
import { PetsService } from './pets.service';
import { RecentWriters } from './recent-writers';

/**
 * A store with a copy that lags: a read that may lag sees only the pets
 * created before the last `catchUp()`, as a replica that stopped would.
 */
class LaggingPetRepository extends PetRepository {
  readonly pets: Pet[] = [];
  private replicated = 0;
  readonly reads: ReadFreshness[] = [];

  async create(pet: Omit<Pet, 'id'>): Promise<Pet> {
    const stored = { id: this.pets.length + 1, ...pet };
    this.pets.push(stored);
    return stored;
  }

  catchUp(): void {
    this.replicated = this.pets.length;
  }

  async findById(id: number, freshness: ReadFreshness): Promise<Pet | null> {
    return this.view(freshness).find((pet) => pet.id === id) ?? null;
  }

  async findPage({ limit, status, afterId = 0 }: PetPageQuery, freshness: ReadFreshness): Promise<Pet[]> {
    return this.view(freshness)
      .filter((pet) => pet.id > afterId && (!status || pet.status === status))
      .slice(0, limit);
  }

  async replace(current: Pet, next: Pet): Promise<boolean> {
    const at = this.pets.findIndex((pet) => isSamePet(pet, current));
    if (at < 0) return false;
    this.pets[at] = next;
    return true;
  }

  async remove(current: Pet): Promise<boolean> {
    const at = this.pets.findIndex((pet) => isSamePet(pet, current));
    if (at < 0) return false;
    this.pets.splice(at, 1);
    this.replicated = Math.min(this.replicated, this.pets.length);
    return true;
  }

  async countByStatus(freshness: ReadFreshness): Promise<Record<PetStatus, number>> {
    const counts = { available: 0, pending: 0, sold: 0 };
    for (const pet of this.view(freshness)) counts[pet.status]++;
    return counts;
  }

  private view(freshness: ReadFreshness): Pet[] {
    this.reads.push(freshness);
    return freshness === 'latest' ? this.pets : this.pets.slice(0, this.replicated);
  }
}

describe('PetsService', () => {
  let service: PetsService;
  let store: LaggingPetRepository;
  const metrics = { countPetCreated: jest.fn() };
  const clock = new FakeClock(1_000_000);
  const WINDOW_MS = 9_000;
  const writers = () => new RecentWriters(WINDOW_MS, clock);
  /** Which pets a placed order holds, as the orders module would answer. */
  const held = new Set<number>();
  const holds: PetHolds = { isHeld: async (petId) => held.has(petId) };
  /** Units run as they come; the store's own rollback is the integration specs' to show. */
  const unitOfWork: UnitOfWork = { run: (work) => work() };

  beforeEach(async () => {
    metrics.countPetCreated.mockReset();
    held.clear();
    store = new LaggingPetRepository();
    const moduleRef = await Test.createTestingModule({
      providers: [
        PetsService,
        { provide: PetRepository, useValue: store },
        { provide: PetMetrics, useValue: metrics },
        { provide: RecentWriters, useValue: writers() },
        { provide: PetHolds, useValue: holds },
        { provide: UnitOfWork, useValue: unitOfWork },
      ],
    }).compile();
    service = moduleRef.get(PetsService);
  });

  /** A store whose copy is current, as the first specs need. */
  const create = async (...args: Parameters<PetsService['create']>) => {
    const pet = await service.create(...args);
    store.catchUp();
    return pet;
  };

  it('gives a new pet the status available when none is given', async () => {
    await expect(create({ name: 'Rex', categoryId: 1 })).resolves.toEqual({
      id: 1,
      name: 'Rex',
      categoryId: 1,
      status: 'available',
    });
  });

  it('counts a created pet in pets_created_total once it is stored, and nothing when the store fails', async () => {
    await service.create({ name: 'Rex', categoryId: 1 });
    expect(metrics.countPetCreated).toHaveBeenCalledTimes(1);
    const failing = new PetsService(
      { create: () => Promise.reject(new Error('store down')) } as unknown as PetRepository,
      metrics as unknown as PetMetrics,
      writers(),
      holds,
      unitOfWork,
    );
    await expect(failing.create({ name: 'Rex', categoryId: 1 })).rejects.toThrow('store down');
    expect(metrics.countPetCreated).toHaveBeenCalledTimes(1);
  });

  it('keeps a given status', async () => {
    await expect(create({ name: 'Tom', categoryId: 2, status: 'sold' })).resolves.toMatchObject({ status: 'sold' });
  });

  it('throws PetNotFoundError, code not_found, for an unknown id', async () => {
    await expect(service.get(42)).rejects.toThrow(PetNotFoundError);
    await expect(service.get(42)).rejects.toMatchObject({ code: 'not_found', petId: 42 });
  });

  it('pages by id: nextAfterId is set only when more pets follow', async () => {
    for (let i = 0; i < 5; i++) await create({ name: `p${i}`, categoryId: 1 });
    const first = await service.list({ limit: 2 });
    expect(first.pets.map((p) => p.id)).toEqual([1, 2]);
    expect(first.nextAfterId).toBe(2);
    const last = await service.list({ limit: 3, afterId: 2 });
    expect(last.pets.map((p) => p.id)).toEqual([3, 4, 5]);
    expect(last.nextAfterId).toBeUndefined();
  });

  it('filters by status across pages', async () => {
    await create({ name: 'a', categoryId: 1, status: 'sold' });
    await create({ name: 'b', categoryId: 1 });
    await create({ name: 'c', categoryId: 1, status: 'sold' });
    const page = await service.list({ limit: 1, status: 'sold' });
    expect(page.pets.map((p) => p.name)).toEqual(['a']);
    const next = await service.list({ limit: 1, status: 'sold', afterId: page.nextAfterId });
    expect(next.pets.map((p) => p.name)).toEqual(['c']);
    expect(next.nextAfterId).toBeUndefined();
  });

  describe('reading one\'s own writes', () => {
    it('reads from the copy that may lag, by default and for anyone who has not created a pet', async () => {
      await create({ name: 'old', categoryId: 1 });
      await service.list({ limit: 5 }, 8);
      await service.get(1);
      expect(store.reads).toEqual(['may-lag', 'may-lag']);
    });

    it('shows a caller its new pet at once in its get and its list, while others read the lagging copy', async () => {
      await create({ name: 'old', categoryId: 1 });
      const rex = await service.create({ name: 'Rex', categoryId: 1 }, 7);
      await expect(service.get(rex.id, 7)).resolves.toEqual(rex);
      await expect(service.list({ limit: 5 }, 7)).resolves.toEqual({ pets: [expect.objectContaining({ name: 'old' }), rex] });
      await expect(service.list({ limit: 5 }, 8)).resolves.toEqual({ pets: [expect.objectContaining({ name: 'old' })] });
      await expect(service.list({ limit: 5 })).resolves.toEqual({ pets: [expect.objectContaining({ name: 'old' })] });
    });

    it('reads the lagging copy again once the window has passed', async () => {
      await service.create({ name: 'Rex', categoryId: 1 }, 7);
      clock.advance(WINDOW_MS);
      await service.list({ limit: 5 }, 7);
      clock.advance(1);
      await service.list({ limit: 5 }, 7);
      expect(store.reads).toEqual(['latest', 'may-lag']);
    });

    it('shows a caller its own change and removal at once, as its create', async () => {
      const rex = await create({ name: 'Rex', categoryId: 1 });
      const tom = await create({ name: 'Tom', categoryId: 1, status: 'sold' });
      await service.update(rex.id, { name: 'Max' }, { writer: 7 });
      await service.get(rex.id, 7);
      await service.inventory(7);
      await service.remove(tom.id, { writer: 8 });
      await service.list({ limit: 5 }, 8);
      await service.list({ limit: 5 }, 9);
      // The changes read the latest themselves; then the writers' reads do, and another caller's may lag.
      expect(store.reads).toEqual(['latest', 'latest', 'latest', 'latest', 'latest', 'may-lag']);
    });

    it('counts only creates that succeeded', async () => {
      jest.spyOn(store, 'create').mockRejectedValueOnce(new Error('store down'));
      await expect(service.create({ name: 'Rex', categoryId: 1 }, 7)).rejects.toThrow('store down');
      await service.list({ limit: 5 }, 7);
      expect(store.reads).toEqual(['may-lag']);
    });

    it('remembers nothing with a window of 0 (no replicas)', async () => {
      const writers = new RecentWriters(0, clock);
      writers.noteWrite(7);
      expect(writers.wroteRecently(7)).toBe(false);
    });
  });

  describe('changing and removing a pet', () => {
    it.each([
      ['available', 'pending'],
      ['available', 'sold'],
      ['pending', 'available'],
      ['pending', 'sold'],
      ['sold', 'sold'],
      ['pending', 'pending'],
    ] as const)('moves a pet from %s to %s', async (from, to) => {
      const pet = await create({ name: 'Rex', categoryId: 1, status: from });
      await expect(service.update(pet.id, { status: to })).resolves.toEqual({ ...pet, status: to });
      await expect(service.get(pet.id)).resolves.toMatchObject({ status: to });
    });

    it.each([
      ['sold', 'available'],
      ['sold', 'pending'],
    ] as const)('refuses a move from %s to %s, naming both, and changes nothing', async (from, to) => {
      const pet = await create({ name: 'Rex', categoryId: 1, status: from });
      const move = service.update(pet.id, { status: to, name: 'Max' });
      await expect(move).rejects.toThrow(InvalidTransitionError);
      await expect(service.update(pet.id, { status: to })).rejects.toMatchObject({ code: 'invalid_transition', message: `A pet cannot move from ${from} to ${to}` });
      await expect(service.get(pet.id)).resolves.toEqual(pet);
    });

    it('keeps the status of a pet a placed order holds, but lets its name and category change', async () => {
      const pet = await create({ name: 'Rex', categoryId: 1, status: 'pending' });
      held.add(pet.id);
      await expect(service.update(pet.id, { status: 'available' })).rejects.toThrow(PetReservedError);
      await expect(service.update(pet.id, { status: 'sold', name: 'Max' })).rejects.toMatchObject({ code: 'pet_reserved' });
      await expect(service.update(pet.id, { name: 'Max', categoryId: 2, status: 'pending' })).resolves.toEqual({ ...pet, name: 'Max', categoryId: 2 });
    });

    it('asks again, after its write, whether an order placed meanwhile holds the pet, and then refuses the write', async () => {
      const pet = await create({ name: 'Rex', categoryId: 1, status: 'pending' });
      // The first question finds no order; the order is placed before the write lands.
      const isHeld = jest.spyOn(holds, 'isHeld').mockResolvedValueOnce(false).mockResolvedValueOnce(true);
      await expect(service.update(pet.id, { status: 'sold' })).rejects.toThrow(PetReservedError);
      expect(isHeld).toHaveBeenCalledTimes(2);
      isHeld.mockRestore();
    });

    it('refuses to remove a pet a placed order holds, and removes it once the hold is gone', async () => {
      const pet = await create({ name: 'Rex', categoryId: 1, status: 'pending' });
      held.add(pet.id);
      await expect(service.remove(pet.id)).rejects.toThrow(PetReservedError);
      held.delete(pet.id);
      await service.remove(pet.id);
      await expect(service.get(pet.id)).rejects.toThrow(PetNotFoundError);
      await expect(service.remove(pet.id)).rejects.toThrow(PetNotFoundError);
    });

    it('judges 404 before the precondition, and the precondition before the move', async () => {
      await expect(service.update(99, { status: 'sold' }, { precondition: () => false })).rejects.toThrow(PetNotFoundError);
      const pet = await create({ name: 'Rex', categoryId: 1, status: 'sold' });
      await expect(service.update(pet.id, { status: 'available' }, { precondition: () => false })).rejects.toThrow(PetPreconditionFailedError);
      await expect(service.remove(pet.id, { precondition: () => false })).rejects.toMatchObject({ code: 'precondition_failed' });
    });

    it('fails the precondition when the pet changed between its read and its write, and retries without one', async () => {
      const pet = await create({ name: 'Rex', categoryId: 1 });
      const replace = store.replace.bind(store);
      // Another writer renames the pet just before this change is written.
      const interfere = () =>
        jest.spyOn(store, 'replace').mockImplementationOnce(async (current, next) => {
          await replace(current, { ...current, name: `${current.name}!` });
          return replace(current, next);
        });
      interfere();
      await expect(service.update(pet.id, { categoryId: 2 }, { precondition: () => true })).rejects.toThrow(PetPreconditionFailedError);
      interfere();
      await expect(service.update(pet.id, { categoryId: 3 })).resolves.toEqual({ ...pet, name: 'Rex!!', categoryId: 3 });
    });

    it('counts the pets of each status, every status present', async () => {
      await expect(service.inventory()).resolves.toEqual({ available: 0, pending: 0, sold: 0 });
      await create({ name: 'a', categoryId: 1 });
      const b = await create({ name: 'b', categoryId: 1, status: 'sold' });
      await create({ name: 'c', categoryId: 1, status: 'sold' });
      await service.remove(b.id);
      store.catchUp();
      await expect(service.inventory()).resolves.toEqual({ available: 1, pending: 0, sold: 1 });
    });
  });
});
