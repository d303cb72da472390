import { FakeClock } from '../../../test/support/fake-clock';
import { InMemoryApiKeyRepository } from '../../../test/support/in-memory-api-key.repository';
import { KeyUsageRecorder } from './key-usage-recorder';

describe('KeyUsageRecorder', () => {
  let repository: InMemoryApiKeyRepository;
  let clock: FakeClock;
  let recorder: KeyUsageRecorder;

  beforeEach(async () => {
    repository = new InMemoryApiKeyRepository();
    clock = new FakeClock(1_000_000);
    recorder = new KeyUsageRecorder(repository, clock);
    for (const name of ['a', 'b']) await repository.create({ name, plan: 'free', customLimits: null, scopes: ['pets:read', 'pets:write'], keyHash: name, createdAt: new Date(), expiresAt: null });
  });
  afterEach(() => recorder.flush());

  it('writes each key once per batch, with its latest use', async () => {
    const write = jest.spyOn(repository, 'recordLastUse');
    recorder.record(1);
    clock.advance(1_000);
    recorder.record(1);
    recorder.record(2);
    expect(write).not.toHaveBeenCalled();
    await recorder.flush();
    expect(write).toHaveBeenCalledTimes(1);
    expect(write).toHaveBeenCalledWith(new Map([[1, new Date(1_001_000)], [2, new Date(1_001_000)]]));
    await recorder.flush();
    expect(write).toHaveBeenCalledTimes(1);
  });

  it('writes a batch by itself 5 seconds after its first use', async () => {
    const write = jest.spyOn(repository, 'recordLastUse');
    recorder.record(1);
    clock.advance(4_999);
    recorder.record(2);
    expect(write).not.toHaveBeenCalled();
    clock.advance(1);
    expect(write).toHaveBeenCalledWith(new Map([[1, new Date(1_000_000)], [2, new Date(1_004_999)]]));
  });

  it('tries a failed batch again 5 seconds later, with no new use', async () => {
    const write = jest.spyOn(repository, 'recordLastUse').mockRejectedValueOnce(new Error('connection lost'));
    recorder.record(1);
    await recorder.flush();
    expect(write).toHaveBeenCalledTimes(1);
    clock.advance(5_000);
    expect(write).toHaveBeenCalledTimes(2);
    expect(write).toHaveBeenLastCalledWith(new Map([[1, new Date(1_000_000)]]));
  });

  it('keeps a batch whose write failed for the next one, without losing a newer use', async () => {
    jest.spyOn(repository, 'recordLastUse').mockRejectedValueOnce(new Error('connection lost'));
    recorder.record(1);
    recorder.record(2);
    const failed = recorder.flush();
    clock.advance(5_000);
    recorder.record(2);
    await failed;
    await recorder.flush();
    expect((await repository.list()).map((key) => key.lastUsedAt)).toEqual([new Date(1_000_000), new Date(1_005_000)]);
  });
});
