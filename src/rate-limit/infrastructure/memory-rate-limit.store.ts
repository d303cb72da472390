import { ADDRESS_TRACKER_PREFIX, type BanPolicy, type RateLimitDecision, RateLimitStore, type WindowSpec } from '../domain/rate-limit-store';
import { consumeRequest, consumeSharedRequest, forgetAtMs, peekRequest, peekSharedRequest, refundRequest, type StoredKeyState } from '../domain/rate-limit-windows';

export interface MemoryRateLimitStoreOptions {
  /** Most keyed records (accounts' counters, keys' rejections and bans) kept; past it, forgotten ones go first, then the least recently counted. */
  readonly maxKeys?: number;
  /** Most client addresses' records kept, apart from the keyed ones, evicted alike. */
  readonly maxAddresses?: number;
  /** How often, on the callers' clock, records whose windows and ban have ended are swept out. */
  readonly sweepEveryMs?: number;
}

interface Entry {
  readonly state: StoredKeyState;
  readonly forgetAtMs: number;
}

/** Records in order of last write, oldest first, bounded: a flood past `max` evicts down to 90% of it at once. */
class BoundedRecords {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly max: number) {}

  get size(): number {
    return this.entries.size;
  }

  get isOverBound(): boolean {
    return this.entries.size > this.max;
  }

  read(key: string, nowMs: number): StoredKeyState | undefined {
    const entry = this.entries.get(key);
    return entry && nowMs < entry.forgetAtMs ? entry.state : undefined;
  }

  write(key: string, state: StoredKeyState): void {
    // Re-inserting keeps the map in order of last write, oldest first, for eviction.
    this.entries.delete(key);
    this.entries.set(key, { state, forgetAtMs: forgetAtMs(state) });
  }

  sweep(nowMs: number): void {
    for (const [key, entry] of this.entries) {
      if (nowMs >= entry.forgetAtMs) this.entries.delete(key);
    }
    if (this.entries.size <= this.max) return;
    const keep = Math.floor(this.max * 0.9);
    for (const key of this.entries.keys()) {
      if (this.entries.size <= keep) break;
      this.entries.delete(key);
    }
  }

  clear(): void {
    this.entries.clear();
  }
}

/**
 * Counters of one process. Memory stays bounded: ended records are swept out
 * every `sweepEveryMs`, and a flood of distinct keys past a bound evicts down
 * to 90% of it at once, so the cost of a sweep is spread over many requests
 * rather than paid on each. Client addresses, which anyone can make up in any
 * number, are kept apart from the keyed records, so a flood of them evicts
 * only other addresses, never an account's counters or a key's ban.
 */
export class MemoryRateLimitStore extends RateLimitStore {
  private readonly keyed: BoundedRecords;
  private readonly addresses: BoundedRecords;
  private readonly sweepEveryMs: number;
  private nextSweepAtMs = -Infinity;

  constructor(options: MemoryRateLimitStoreOptions = {}) {
    super();
    this.keyed = new BoundedRecords(options.maxKeys ?? 100_000);
    this.addresses = new BoundedRecords(options.maxAddresses ?? 100_000);
    this.sweepEveryMs = options.sweepEveryMs ?? 60_000;
  }

  get size(): number {
    return this.keyed.size + this.addresses.size;
  }

  async consume(key: string, windows: readonly WindowSpec[], policy: BanPolicy, nowMs: number, banSubject?: string): Promise<RateLimitDecision> {
    const records = this.recordsOf(key);
    const stored = records.read(key, nowMs);
    let decision: RateLimitDecision;
    if (banSubject === undefined) {
      const outcome = consumeRequest(stored, windows, policy, nowMs);
      if (outcome.state !== stored) records.write(key, outcome.state);
      decision = outcome.decision;
    } else {
      const banKey = banKeyOf(key, banSubject);
      const outcome = consumeSharedRequest(stored, records.read(banKey, nowMs), windows, policy, nowMs);
      if (outcome.quota) records.write(key, outcome.quota);
      if (outcome.ban) records.write(banKey, outcome.ban);
      decision = outcome.decision;
    }
    if (nowMs >= this.nextSweepAtMs) {
      this.nextSweepAtMs = nowMs + this.sweepEveryMs;
      this.keyed.sweep(nowMs);
      this.addresses.sweep(nowMs);
    } else if (records.isOverBound) {
      records.sweep(nowMs);
    }
    return decision;
  }

  async peek(key: string, windows: readonly WindowSpec[], _policy: BanPolicy, nowMs: number, banSubject?: string): Promise<RateLimitDecision> {
    const records = this.recordsOf(key);
    const stored = records.read(key, nowMs);
    if (banSubject === undefined) return peekRequest(stored, windows, nowMs);
    return peekSharedRequest(stored, records.read(banKeyOf(key, banSubject), nowMs), windows, nowMs);
  }

  async refund(key: string, windows: readonly WindowSpec[], counted: RateLimitDecision, nowMs: number): Promise<void> {
    const records = this.recordsOf(key);
    const stored = records.read(key, nowMs);
    const refunded = refundRequest(stored, windows, counted, nowMs);
    if (refunded && refunded !== stored) records.write(key, refunded);
  }

  async close(): Promise<void> {
    this.keyed.clear();
    this.addresses.clear();
  }

  private recordsOf(key: string): BoundedRecords {
    return key.startsWith(ADDRESS_TRACKER_PREFIX) ? this.addresses : this.keyed;
  }
}

/** Where a ban subject's rejections and ban are kept, beside the shared windows' record. */
function banKeyOf(key: string, banSubject: string): string {
  return `${key}:${banSubject}`;
}
