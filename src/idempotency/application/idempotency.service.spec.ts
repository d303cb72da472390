import { Test } from '@nestjs/testing';
import { AsyncLocalStorage } from 'node:async_hooks';
import { AppConfig } from '../../config/app-config';
import { Clock } from '../../config/clock';
import { UnitOfWork } from '../../database/unit-of-work';
import { fingerprintOf } from '../domain/idempotency-key';
import { IdempotencyKeyInUseError } from '../domain/idempotency.errors';
import { IdempotencyRecordStore } from '../domain/idempotency-record.store';
import { IdempotencyService } from './idempotency.service';

/** Says whether the code calling it runs inside a unit, as the real one's ambient transaction would; a unit that throws counts as undone. */
class RecordingUnitOfWork extends UnitOfWork {
  private readonly units = new AsyncLocalStorage<true>();
  readonly undone: unknown[] = [];

  get inside(): boolean {
    return this.units.getStore() === true;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await this.units.run(true, work);
    } catch (error) {
      this.undone.push(error);
      throw error;
    }
  }
}

describe('IdempotencyService', () => {
  const records = {
    claim: jest.fn(),
    find: jest.fn(),
    complete: jest.fn(),
    release: jest.fn(),
    forgetIfExpired: jest.fn(),
    removeExpired: jest.fn(),
  };
  let now = 1_000_000;
  let unitOfWork: RecordingUnitOfWork;
  let service: IdempotencyService;
  const request = { apiKeyId: 7, key: 'k', operation: 'POST /v1/pets', payload: { name: 'Rex' } };
  const scope = { apiKeyId: 7, key: 'k' };
  const claimOf = (call: unknown[]) => call[0] as { scope: typeof scope; token: string };

  beforeEach(async () => {
    jest.resetAllMocks();
    records.release.mockResolvedValue(undefined);
    now = 1_000_000;
    unitOfWork = new RecordingUnitOfWork();
    const moduleRef = await Test.createTestingModule({
      providers: [
        IdempotencyService,
        { provide: IdempotencyRecordStore, useValue: records },
        { provide: UnitOfWork, useValue: unitOfWork },
        { provide: Clock, useValue: { now: () => now } },
        { provide: AppConfig, useValue: { idempotencyTtlSeconds: 60 } },
      ],
    }).compile();
    service = moduleRef.get(IdempotencyService);
  });

  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it('runs the operation without touching the records when the request has no key', async () => {
    await expect(service.perform({ ...request, key: undefined }, async () => ({ status: 201, body: 1 }))).resolves.toEqual({
      status: 201,
      body: 1,
      replayed: false,
    });
    expect(records.claim).not.toHaveBeenCalled();
  });

  it('claims the key for the TTL, runs the operation and stores its outcome, all in one unit of work', async () => {
    let claimedInside = false;
    records.claim.mockImplementation(async () => (claimedInside = unitOfWork.inside));
    let operationInside = false;
    records.complete.mockImplementation(async () => unitOfWork.inside);
    await expect(
      service.perform(request, async () => {
        operationInside = unitOfWork.inside;
        return { status: 201, body: { id: 1 } };
      }),
    ).resolves.toEqual({ status: 201, body: { id: 1 }, replayed: false });
    const claim = claimOf(records.claim.mock.calls[0]);
    expect(records.claim).toHaveBeenCalledWith(
      { scope, token: expect.stringMatching(/^[0-9a-f-]{36}$/), operation: 'POST /v1/pets' },
      expect.any(String),
      now + 60_000,
    );
    expect(records.complete).toHaveBeenCalledWith(claim, { status: 201, body: '{"id":1}', location: undefined });
    expect({ claimedInside, operationInside, undone: unitOfWork.undone }).toEqual({ claimedInside: true, operationInside: true, undone: [] });
    // Housekeeping is IdempotencySweeper's, on its own schedule.
    expect(records.removeExpired).not.toHaveBeenCalled();
  });

  it('gives every request a claim token of its own', async () => {
    records.claim.mockResolvedValue(true);
    records.complete.mockResolvedValue(true);
    await service.perform(request, async () => ({ status: 201, body: 1 }));
    await service.perform(request, async () => ({ status: 201, body: 1 }));
    expect(claimOf(records.claim.mock.calls[0]).token).not.toBe(claimOf(records.claim.mock.calls[1]).token);
  });

  it('undoes the operation and answers 409 when another process completed the key first', async () => {
    records.claim.mockResolvedValue(true);
    records.complete.mockResolvedValue(false);
    await expect(service.perform(request, async () => ({ status: 201, body: { id: 1 } }))).rejects.toThrow(IdempotencyKeyInUseError);
    expect(unitOfWork.undone).toEqual([expect.any(IdempotencyKeyInUseError)]);
  });

  it('releases its own claim when the operation fails, so a retry may run it', async () => {
    records.claim.mockResolvedValue(true);
    await expect(service.perform(request, () => Promise.reject(new Error('store down')))).rejects.toThrow('store down');
    expect(records.release).toHaveBeenCalledWith(claimOf(records.claim.mock.calls[0]));
    expect(records.complete).not.toHaveBeenCalled();
  });

  it('releases its claim when the claim itself fails, a retry waiting too long on another request, and answers 409', async () => {
    records.claim.mockRejectedValue(new IdempotencyKeyInUseError());
    const operation = jest.fn();
    await expect(service.perform(request, operation)).rejects.toThrow(IdempotencyKeyInUseError);
    expect(records.release).toHaveBeenCalledWith(claimOf(records.claim.mock.calls[0]));
    expect(operation).not.toHaveBeenCalled();
  });

  it('reads the record that refused its claim outside the unit of work, where what another request committed shows', async () => {
    records.claim.mockResolvedValue(false);
    let foundInside: boolean | undefined;
    records.find.mockImplementation(async () => {
      foundInside = unitOfWork.inside;
      return { operation: 'POST /v1/pets', fingerprint: 'another body', expiresAt: now + 1 };
    });
    await expect(service.perform(request, jest.fn())).rejects.toThrow('different request body');
    expect(foundInside).toBe(false);
  });

  it('claims again when the record it met was removed in between', async () => {
    records.claim.mockResolvedValueOnce(false).mockResolvedValueOnce(true);
    records.complete.mockResolvedValue(true);
    records.find.mockResolvedValue(null);
    const operation = jest.fn(async () => ({ status: 201, body: 2 }));
    await expect(service.perform(request, operation)).resolves.toMatchObject({ body: 2, replayed: false });
    expect(records.claim).toHaveBeenCalledTimes(2);
    const [first, second] = records.claim.mock.calls;
    expect(second).toEqual(first);
    expect(operation).toHaveBeenCalledTimes(1);
    expect(records.complete).toHaveBeenCalledWith(first[0], { status: 201, body: '2', location: undefined });
  });

  it('answers 409 when the key stays contested', async () => {
    records.claim.mockResolvedValue(false);
    records.find.mockResolvedValue(null);
    await expect(service.perform(request, async () => ({ status: 201, body: 3 }))).rejects.toThrow(IdempotencyKeyInUseError);
  });

  it('refuses, 422, a key whose record another operation made, whatever the body', async () => {
    records.claim.mockResolvedValue(false);
    records.find.mockResolvedValue({ operation: 'POST /v1/store/orders', fingerprint: 'same', expiresAt: now + 1, outcome: { status: 201, body: '{}' } });
    const operation = jest.fn();
    await expect(service.perform(request, operation)).rejects.toMatchObject({ code: 'idempotency_key_reused', message: 'This Idempotency-Key was already used for another operation' });
    expect(operation).not.toHaveBeenCalled();
  });

  it('replays the stored Location with the stored answer', async () => {
    records.claim.mockResolvedValue(false);
    const fingerprint = fingerprintOf(request.payload);
    records.find.mockResolvedValue({ operation: 'POST /v1/pets', fingerprint, expiresAt: now + 1, outcome: { status: 201, body: '{"id":4}', location: 'https://api.example.com/v1/pets/4' } });
    await expect(service.perform(request, jest.fn())).resolves.toEqual({ status: 201, body: { id: 4 }, location: 'https://api.example.com/v1/pets/4', replayed: true });
  });
});
