import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { Clock } from '../../config/clock';
import { addDays, UsageStore, usageDayOf } from '../domain/usage';

export const USAGE_PRUNE_INTERVAL_MS = 600_000;

/**
 * Housekeeping off the request path: every interval, the usage days older
 * than USAGE_RETENTION_DAYS are removed. A prune that fails is logged and
 * tried again at the next.
 */
@Injectable()
export class UsageRetention implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Usage');
  private cancel?: () => void;
  private pruning?: Promise<number>;
  private stopped = false;

  constructor(
    private readonly store: UsageStore,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.scheduleNext();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.cancel?.();
    await this.pruning;
  }

  /** Removes the days past retention: today and the RETENTION_DAYS - 1 before it are kept. */
  async prune(): Promise<number> {
    const oldestKept = addDays(usageDayOf(this.clock.now()), 1 - this.config.usageRetentionDays);
    try {
      return await this.store.removeBefore(oldestKept);
    } catch (error) {
      this.logger.warn(`Removing usage before ${oldestKept} failed (${(error as Error).message}); the next prune tries again`);
      return 0;
    }
  }

  private scheduleNext(): void {
    this.cancel = this.clock.schedule(() => {
      this.pruning = this.prune().finally(() => {
        this.pruning = undefined;
        if (!this.stopped) this.scheduleNext();
      });
    }, USAGE_PRUNE_INTERVAL_MS);
  }
}
