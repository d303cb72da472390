import { Test } from '@nestjs/testing';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CallerLookup } from '../../auth/application/caller-lookup';
import { AppConfig } from '../../config/app-config';
import { IdempotencyService, IdempotentRequest, Outcome } from '../../idempotency/application/idempotency.service';
import { OpsMetrics } from '../../ops/metrics';
import { PetsService } from '../application/pets.service';
import { Pet } from '../domain/pet';
import { PetsController } from './pets.controller';

describe('PetsController', () => {
  const stored: Pet = { id: 1, name: 'Rex', categoryId: 3, status: 'available' };
  const pets = { create: jest.fn() };
  const metrics = { countPetCreated: jest.fn() };
  const callers = { callerFor: jest.fn() };
  // Runs the operation as it is, as the service does for a request without Idempotency-Key.
  const idempotency = {
    perform: async (_request: IdempotentRequest, operation: () => Promise<Outcome<unknown>>) => ({ ...(await operation()), replayed: false }),
  };
  const reply = { header: jest.fn(), status: jest.fn() };
  let controller: PetsController;

  const createPet = () =>
    controller.createPet({ name: 'Rex', categoryId: 3 }, undefined, { headers: {}, body: {} } as FastifyRequest, reply as unknown as FastifyReply);

  beforeEach(async () => {
    jest.resetAllMocks();
    callers.callerFor.mockResolvedValue({ keyId: 7, limits: {} });
    const moduleRef = await Test.createTestingModule({
      controllers: [PetsController],
      providers: [
        { provide: PetsService, useValue: pets },
        { provide: OpsMetrics, useValue: metrics },
        { provide: AppConfig, useValue: {} },
        { provide: IdempotencyService, useValue: idempotency },
        { provide: CallerLookup, useValue: callers },
      ],
    }).compile();
    controller = moduleRef.get(PetsController);
  });

  it('counts a created pet in pets_created_total once it is stored', async () => {
    pets.create.mockResolvedValue(stored);
    await expect(createPet()).resolves.toEqual(stored);
    expect(metrics.countPetCreated).toHaveBeenCalledTimes(1);
    expect(reply.header).not.toHaveBeenCalled();
  });

  it('counts nothing when the store fails', async () => {
    pets.create.mockRejectedValue(new Error('store down'));
    await expect(createPet()).rejects.toThrow('store down');
    expect(metrics.countPetCreated).not.toHaveBeenCalled();
  });
});
