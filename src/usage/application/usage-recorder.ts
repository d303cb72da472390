import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { Clock } from '../../config/clock';
import { OpsMetrics } from '../../ops/metrics';
import { addCounts, noAnswers, UsageRow, UsageStore, usageDayOf, usageOutcomeOf } from '../domain/usage';

/** How long counts wait in memory before one batched write: a figure read from the store is at most this late. */
export const USAGE_FLUSH_MS = 5_000;

/**
 * Counts each key's answers by UTC day and outcome in memory and adds them to
 * the store in batches, every few seconds and at shutdown, so a request never
 * waits on a write and N requests cost a few statements, not N.
 */
@Injectable()
export class UsageRecorder implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Usage');
  private pending = new Map<string, UsageRow>();
  private cancelFlush: (() => void) | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: UsageStore,
    private readonly clock: Clock,
    private readonly metrics: OpsMetrics,
  ) {}

  record(keyId: number, accountId: number, status: number): void {
    const day = usageDayOf(this.clock.now());
    const slot = `${day} ${keyId}`;
    let row = this.pending.get(slot);
    if (!row) this.pending.set(slot, (row = { day, keyId, accountId, counts: noAnswers() }));
    row.counts[usageOutcomeOf(status)] += 1;
    // A pending batch never holds a process open; shutdown flushes it instead.
    this.cancelFlush ??= this.clock.schedule(() => void this.flush(), USAGE_FLUSH_MS);
  }

  /** Writes what has been counted since the last flush; flushes run one after another. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.writePending());
    return this.flushing;
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.flush();
  }

  private async writePending(): Promise<void> {
    this.cancelFlush?.();
    this.cancelFlush = undefined;
    if (!this.pending.size) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      this.metrics.countUsageUpserts(await this.store.add([...batch.values()]));
    } catch (error) {
      // Kept for the next batch, added to what was counted meanwhile.
      for (const [slot, row] of batch) {
        const newer = this.pending.get(slot);
        this.pending.set(slot, newer ? { ...row, counts: addCounts({ ...row.counts }, newer.counts) } : row);
      }
      this.cancelFlush ??= this.clock.schedule(() => void this.flush(), USAGE_FLUSH_MS);
      this.logger.warn(`Could not record the usage of ${batch.size} key-days: ${(error as Error).message}; the next flush tries again`);
    }
  }
}
