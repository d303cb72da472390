import { FakeClock } from '../../../test/support/fake-clock';
import { OpsMetrics } from '../../ops/metrics';
import { DayRange, UsageRow, UsageStore } from '../domain/usage';
import { USAGE_FLUSH_MS, UsageRecorder } from './usage-recorder';

/** Keeps each batch it is handed, or fails while told to. */
class BatchesKept extends UsageStore {
  readonly batches: UsageRow[][] = [];
  failing = false;

  async add(rows: readonly UsageRow[]): Promise<number> {
    if (this.failing) throw new Error('store away');
    this.batches.push(rows.map((row) => ({ ...row, counts: { ...row.counts } })));
    return 1;
  }

  async findByKey(_keyId: number, _days: DayRange): Promise<UsageRow[]> {
    return [];
  }

  async findByAccount(_accountId: number, _days: DayRange): Promise<UsageRow[]> {
    return [];
  }

  async removeBefore(): Promise<number> {
    return 0;
  }
}

describe('UsageRecorder', () => {
  let store: BatchesKept;
  let clock: FakeClock;
  let recorder: UsageRecorder;

  beforeEach(() => {
    store = new BatchesKept();
    clock = new FakeClock(Date.UTC(2030, 0, 1, 23, 59, 59));
    recorder = new UsageRecorder(store, clock, new OpsMetrics());
  });

  it('adds up answers per key and UTC day, and hands them over as one batch a few seconds after the first', async () => {
    recorder.record(1, 10, 200);
    recorder.record(1, 10, 200);
    recorder.record(1, 10, 304);
    recorder.record(2, 10, 429);
    clock.advance(1_000);
    recorder.record(1, 10, 503);
    expect(store.batches).toEqual([]);
    clock.advance(USAGE_FLUSH_MS);
    await recorder.flush();
    expect(store.batches).toHaveLength(1);
    expect(store.batches[0]).toEqual([
      { day: '2030-01-01', keyId: 1, accountId: 10, counts: { success: 2, notModified: 1, clientError: 0, rateLimited: 0, serverError: 0 } },
      { day: '2030-01-01', keyId: 2, accountId: 10, counts: { success: 0, notModified: 0, clientError: 0, rateLimited: 1, serverError: 0 } },
      { day: '2030-01-02', keyId: 1, accountId: 10, counts: { success: 0, notModified: 0, clientError: 0, rateLimited: 0, serverError: 1 } },
    ]);
  });

  it('keeps a batch the store refused and adds it to what came meanwhile, for the next flush', async () => {
    store.failing = true;
    recorder.record(1, 10, 404);
    await recorder.flush();
    recorder.record(1, 10, 404);
    store.failing = false;
    await recorder.flush();
    expect(store.batches).toEqual([[{ day: '2030-01-01', keyId: 1, accountId: 10, counts: { success: 0, notModified: 0, clientError: 2, rateLimited: 0, serverError: 0 } }]]);
    await recorder.flush();
    expect(store.batches).toHaveLength(1);
  });
});
