import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { Clock } from '../../config/clock';
import { ApiKeyRepository } from '../domain/api-key.repository';

/** How long last-use times wait in memory before one batched write; well inside the promised ten seconds. */
export const LAST_USE_FLUSH_MS = 5_000;

/**
 * Remembers when each key was last used and writes those times to the store in
 * batches, so a request never waits on a write of its own.
 */
@Injectable()
export class KeyUsageRecorder implements BeforeApplicationShutdown {
  private readonly logger = new Logger(KeyUsageRecorder.name);
  private pending = new Map<number, Date>();
  private cancelFlush: (() => void) | undefined;

  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly clock: Clock,
  ) {}

  record(keyId: number): void {
    this.pending.set(keyId, new Date(this.clock.now()));
    // A pending batch never holds a process open; shutdown flushes it instead.
    this.cancelFlush ??= this.clock.schedule(() => void this.flush(), LAST_USE_FLUSH_MS);
  }

  /** Writes what has been recorded since the last flush. */
  async flush(): Promise<void> {
    this.cancelFlush?.();
    this.cancelFlush = undefined;
    if (!this.pending.size) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      await this.keys.recordLastUse(batch);
    } catch (error) {
      // Kept for the next batch, tried again later, unless a newer use of the same key replaced it meanwhile.
      for (const [keyId, at] of batch) if (!this.pending.has(keyId)) this.pending.set(keyId, at);
      this.cancelFlush ??= this.clock.schedule(() => void this.flush(), LAST_USE_FLUSH_MS);
      this.logger.warn(`Could not record the last use of ${batch.size} API keys: ${(error as Error).message}`);
    }
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.flush();
  }
}
