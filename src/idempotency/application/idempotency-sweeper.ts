import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Clock } from '../../config/clock';
import { IdempotencyRecordStore } from '../domain/idempotency-record.store';

/** Expired records are removed in batches this small, once per interval and instance. */
export const SWEEP_BATCH = 500;
export const SWEEP_INTERVAL_MS = 60_000;

/**
 * Housekeeping off the request path: every interval, one batch of expired
 * idempotency records is removed. A sweep that fails (the database away, a
 * deadlock with claims in progress) is logged and tried again at the next.
 */
@Injectable()
export class IdempotencySweeper implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Idempotency');
  private cancel?: () => void;
  private sweeping?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly records: IdempotencyRecordStore,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.scheduleNext();
  }

  /** Waits for a sweep under way, so the pool it uses closes after it. */
  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.cancel?.();
    await this.sweeping;
  }

  private scheduleNext(): void {
    this.cancel = this.clock.schedule(() => {
      this.sweeping = this.sweep().finally(() => {
        this.sweeping = undefined;
        if (!this.stopped) this.scheduleNext();
      });
    }, SWEEP_INTERVAL_MS);
  }

  private async sweep(): Promise<void> {
    try {
      await this.records.removeExpired(this.clock.now(), SWEEP_BATCH);
    } catch (error) {
      this.logger.warn(`Removing expired idempotency records failed (${(error as Error).message}); the next sweep tries again`);
    }
  }
}
