import { Logger } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { AsyncLocalStorage } from 'node:async_hooks';
import { AppConfig } from '../../config/app-config';
import { Clock } from '../../config/clock';
import { UnitOfWork } from '../../database/unit-of-work';
import { IdempotencyKeyInUseError } from '../domain/idempotency.errors';
import { IdempotencyRecordStore } from '../domain/idempotency-record.store';
import { IdempotencyService, SWEEP_BATCH } from './idempotency.service';

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
    renew: jest.fn(),
    complete: jest.fn(),
    release: jest.fn(),
    forgetIfExpired: jest.fn(),
    removeExpired: jest.fn(),
  };
  let now = 1_000_000;
  let unitOfWork: RecordingUnitOfWork;
  let service: IdempotencyService;
  const request = { apiKeyId: 7, key: 'k', payload: { name: 'Rex' } };
  const scope = { apiKeyId: 7, key: 'k' };
  const claimOf = (call: unknown[]) => call[0] as { scope: typeof scope; token: string };

  beforeEach(async () => {
    jest.resetAllMocks();
    records.release.mockResolvedValue(undefined);
    records.renew.mockResolvedValue(undefined);
    now = 1_000_000;
    unitOfWork = new RecordingUnitOfWork();
    const moduleRef = await Test.createTestingModule({
      providers: [
        IdempotencyService,
        { provide: IdempotencyRecordStore, useValue: records },
        { provide: UnitOfWork, useValue: unitOfWork },
        { provide: Clock, useValue: { now: () => now } },
        { provide: AppConfig, useValue: { idempotencyTtlSeconds: 60, idempotencyLeaseSeconds: 3 } },
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

  it('claims for the lease, then stores the outcome for the TTL in the same unit of work as the operation', async () => {
    records.claim.mockResolvedValue(true);
    let operationInside = false;
    records.complete.mockImplementation(async () => unitOfWork.inside);
    await expect(
      service.perform(request, async () => {
        operationInside = unitOfWork.inside;
        return { status: 201, body: { id: 1 } };
      }),
    ).resolves.toEqual({ status: 201, body: { id: 1 }, replayed: false });
    const claim = claimOf(records.claim.mock.calls[0]);
    expect(records.claim).toHaveBeenCalledWith({ scope, token: expect.stringMatching(/^[0-9a-f-]{36}$/) }, expect.any(String), now + 3_000);
    expect(records.complete).toHaveBeenCalledWith(claim, { status: 201, body: '{"id":1}' }, now + 60_000);
    expect({ operationInside, undone: unitOfWork.undone }).toEqual({ operationInside: true, undone: [] });
  });

  it('answers a committed create even when the sweep of expired records after it fails, and warns', async () => {
    records.claim.mockResolvedValue(true);
    records.complete.mockResolvedValue(true);
    records.removeExpired.mockRejectedValue(new Error('Deadlock found when trying to get lock'));
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    await expect(service.perform(request, async () => ({ status: 201, body: { id: 1 } }))).resolves.toEqual({ status: 201, body: { id: 1 }, replayed: false });
    expect(records.removeExpired).toHaveBeenCalledWith(now, SWEEP_BATCH);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('Deadlock found when trying to get lock'));
    expect(unitOfWork.undone).toEqual([]);
  });

  it('gives every request a claim token of its own', async () => {
    records.claim.mockResolvedValue(true);
    records.complete.mockResolvedValue(true);
    await service.perform(request, async () => ({ status: 201, body: 1 }));
    await service.perform(request, async () => ({ status: 201, body: 1 }));
    expect(claimOf(records.claim.mock.calls[0]).token).not.toBe(claimOf(records.claim.mock.calls[1]).token);
  });

  it('undoes the operation and answers 409 when its claim was taken over before it completed', async () => {
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

  it("raises the operation's error even when the release fails too", async () => {
    records.claim.mockResolvedValue(true);
    records.release.mockRejectedValue(new Error('still down'));
    await expect(service.perform(request, () => Promise.reject(new Error('store down')))).rejects.toThrow('store down');
  });

  it('renews the claim a few times per lease while the operation runs, outside its unit of work, and stops when it ends', async () => {
    jest.useFakeTimers();
    records.claim.mockResolvedValue(true);
    records.complete.mockResolvedValue(true);
    const renewedInside: boolean[] = [];
    records.renew.mockImplementation(async () => void renewedInside.push(unitOfWork.inside));
    let finish!: () => void;
    const performed = service.perform(request, () => new Promise<{ status: number; body: number }>((resolve) => (finish = () => resolve({ status: 201, body: 1 }))));
    await jest.advanceTimersByTimeAsync(1_000);
    now += 1_000;
    await jest.advanceTimersByTimeAsync(1_000);
    const claim = claimOf(records.claim.mock.calls[0]);
    expect(records.renew.mock.calls).toEqual([
      [claim, 1_000_000 + 3_000],
      [claim, 1_001_000 + 3_000],
    ]);
    // Inside the transaction a renewal would be seen by no one else until the operation ended.
    expect(renewedInside).toEqual([false, false]);
    finish();
    await performed;
    await jest.advanceTimersByTimeAsync(10_000);
    expect(records.renew).toHaveBeenCalledTimes(2);
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
    expect(records.complete).toHaveBeenCalledWith(first[0], { status: 201, body: '2' }, expect.any(Number));
  });

  it('answers 409 when the key stays contested', async () => {
    records.claim.mockResolvedValue(false);
    records.find.mockResolvedValue(null);
    await expect(service.perform(request, async () => ({ status: 201, body: 3 }))).rejects.toThrow(IdempotencyKeyInUseError);
  });
});
