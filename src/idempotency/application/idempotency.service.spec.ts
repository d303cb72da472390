import { Test } from '@nestjs/testing';
import { AppConfig } from '../../config/app-config';
import { Clock } from '../../config/clock';
import { IdempotencyKeyInUseError } from '../domain/idempotency.errors';
import { IdempotencyRecordStore } from '../domain/idempotency-record.store';
import { IdempotencyService } from './idempotency.service';

describe('IdempotencyService', () => {
  const records = {
    claim: jest.fn(),
    find: jest.fn(),
    complete: jest.fn(),
    release: jest.fn(),
    forgetIfExpired: jest.fn(),
    removeExpired: jest.fn(),
  };
  const now = 1_000_000;
  let service: IdempotencyService;
  const request = { apiKeyId: 7, key: 'k', payload: { name: 'Rex' } };

  beforeEach(async () => {
    jest.resetAllMocks();
    const moduleRef = await Test.createTestingModule({
      providers: [
        IdempotencyService,
        { provide: IdempotencyRecordStore, useValue: records },
        { provide: Clock, useValue: { now: () => now } },
        { provide: AppConfig, useValue: { idempotencyTtlSeconds: 60 } },
      ],
    }).compile();
    service = moduleRef.get(IdempotencyService);
  });

  it('runs the operation without touching the records when the request has no key', async () => {
    await expect(service.perform({ ...request, key: undefined }, async () => ({ status: 201, body: 1 }))).resolves.toEqual({
      status: 201,
      body: 1,
      replayed: false,
    });
    expect(records.claim).not.toHaveBeenCalled();
  });

  it('stores the outcome for the TTL once the operation succeeds', async () => {
    records.claim.mockResolvedValue(true);
    await expect(service.perform(request, async () => ({ status: 201, body: { id: 1 } }))).resolves.toEqual({
      status: 201,
      body: { id: 1 },
      replayed: false,
    });
    expect(records.complete).toHaveBeenCalledWith({ apiKeyId: 7, key: 'k' }, { status: 201, body: '{"id":1}' }, now + 60_000);
  });

  it('releases the claim when the operation fails, so a retry may run it', async () => {
    records.claim.mockResolvedValue(true);
    await expect(service.perform(request, () => Promise.reject(new Error('store down')))).rejects.toThrow('store down');
    expect(records.release).toHaveBeenCalledWith({ apiKeyId: 7, key: 'k' });
    expect(records.complete).not.toHaveBeenCalled();
  });

  it('claims again when the record it met was removed in between', async () => {
    records.claim.mockResolvedValueOnce(false).mockResolvedValueOnce(true);
    records.find.mockResolvedValue(null);
    await expect(service.perform(request, async () => ({ status: 201, body: 2 }))).resolves.toMatchObject({ body: 2, replayed: false });
  });

  it('answers 409 when the key stays contested', async () => {
    records.claim.mockResolvedValue(false);
    records.find.mockResolvedValue(null);
    await expect(service.perform(request, async () => ({ status: 201, body: 3 }))).rejects.toThrow(IdempotencyKeyInUseError);
  });
});
