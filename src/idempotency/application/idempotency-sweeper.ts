import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Clock, Repeating, repeatEvery } from '../../config/clock';
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
  private sweeps?: Repeating;

  constructor(
    private readonly records: IdempotencyRecordStore,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.sweeps = repeatEvery(this.clock, SWEEP_INTERVAL_MS, () => this.sweep());
  }

  /** Waits for a sweep under way, so the pool it uses closes after it. */
  async onApplicationShutdown(): Promise<void> {
    await this.sweeps?.stop();
  }

  private async sweep(): Promise<void> {
    try {
      await this.records.removeExpired(this.clock.now(), SWEEP_BATCH);
    } catch (error) {
      this.logger.warn(`Removing expired idempotency records failed (${(error as Error).message}); the next sweep tries again`);
    }
  }
}
