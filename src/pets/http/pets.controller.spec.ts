import { Test } from '@nestjs/testing';
import { AppConfig } from '../../config/app-config';
import { OpsMetrics } from '../../ops/metrics';
import { PetsService } from '../application/pets.service';
import { Pet } from '../domain/pet';
import { PetsController } from './pets.controller';

describe('PetsController', () => {
  const stored: Pet = { id: 1, name: 'Rex', categoryId: 3, status: 'available' };
  const pets = { create: jest.fn() };
  const metrics = { countPetCreated: jest.fn() };
  let controller: PetsController;

  beforeEach(async () => {
    jest.resetAllMocks();
    const moduleRef = await Test.createTestingModule({
      controllers: [PetsController],
      providers: [
        { provide: PetsService, useValue: pets },
        { provide: OpsMetrics, useValue: metrics },
        { provide: AppConfig, useValue: {} },
      ],
    }).compile();
    controller = moduleRef.get(PetsController);
  });

  it('counts a created pet in pets_created_total once it is stored', async () => {
    pets.create.mockResolvedValue(stored);
    await expect(controller.createPet({ name: 'Rex', categoryId: 3 })).resolves.toEqual(stored);
    expect(metrics.countPetCreated).toHaveBeenCalledTimes(1);
  });

  it('counts nothing when the store fails', async () => {
    pets.create.mockRejectedValue(new Error('store down'));
    await expect(controller.createPet({ name: 'Rex', categoryId: 3 })).rejects.toThrow('store down');
    expect(metrics.countPetCreated).not.toHaveBeenCalled();
  });
});
