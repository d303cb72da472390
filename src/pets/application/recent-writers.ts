import { LRUCache } from 'lru-cache';
import type { AppConfig } from '../../config/app-config';
import type { Clock } from '../../config/clock';
import { replicaStalenessBoundMs } from '../../database/replica-monitor';

/** Whoever creates pets and reads them back: today an API key's id. */
export type CallerId = number;

/** More writers than this within one window and the oldest are forgotten early (their reads may then lag). */
const MAX_WRITERS = 100_000;

/**
 * The callers who created a pet within the last `windowMs`, so that their
 * reads see their own pets while replicas may still lag. Remembered by this
 * instance only (see docs/adr/0013). A window of 0 (no replicas) remembers
 * nothing: every read is then as fresh as the store.
 */
export class RecentWriters {
  private readonly writers?: LRUCache<CallerId, true>;

  constructor(windowMs: number, clock: Clock) {
    if (windowMs > 0) this.writers = new LRUCache({ max: MAX_WRITERS, ttl: windowMs, ttlResolution: 0, perf: { now: () => clock.now() } });
  }

  noteWrite(writer: CallerId | undefined): void {
    if (writer !== undefined) this.writers?.set(writer, true);
  }

  wroteRecently(reader: CallerId | undefined): boolean {
    return reader !== undefined && this.writers?.has(reader) === true;
  }
}

/** The writers to remember on this configuration: for as long as a replica in service may lack their writes, or none without replicas. */
export function recentWritersFor(config: AppConfig, clock: Clock): RecentWriters {
  return new RecentWriters(config.databaseReplicaUrls.length ? replicaStalenessBoundMs(config.databaseReplicaMaxLagSeconds) : 0, clock);
}
