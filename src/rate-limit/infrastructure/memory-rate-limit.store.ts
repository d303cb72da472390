import { type BanPolicy, type RateLimitDecision, RateLimitStore, type WindowSpec } from '../domain/rate-limit-store';
import { consumeRequest, consumeSharedRequest, forgetAtMs, peekRequest, peekSharedRequest, type StoredKeyState } from '../domain/rate-limit-windows';

export interface MemoryRateLimitStoreOptions {
  /** Most keys kept; past it, forgotten keys go first, then the least recently counted. */
  readonly maxKeys?: number;
  /** How often, on the callers' clock, keys whose windows and ban have ended are swept out. */
  readonly sweepEveryMs?: number;
}

interface Entry {
  readonly state: StoredKeyState;
  readonly forgetAtMs: number;
}

/**
 * Counters of one process. Memory stays bounded: ended keys are swept out
 * every `sweepEveryMs`, and a flood of distinct keys past `maxKeys` evicts
 * down to 90% of it at once, so the cost of a sweep is spread over many
 * requests rather than paid on each.
 */
export class MemoryRateLimitStore extends RateLimitStore {
  private readonly entries = new Map<string, Entry>();
  private readonly maxKeys: number;
  private readonly sweepEveryMs: number;
  private nextSweepAtMs = -Infinity;

  constructor(options: MemoryRateLimitStoreOptions = {}) {
    super();
    this.maxKeys = options.maxKeys ?? 100_000;
    this.sweepEveryMs = options.sweepEveryMs ?? 60_000;
  }

  get size(): number {
    return this.entries.size;
  }

  async consume(key: string, windows: readonly WindowSpec[], policy: BanPolicy, nowMs: number, banSubject?: string): Promise<RateLimitDecision> {
    const stored = this.read(key, nowMs);
    let decision: RateLimitDecision;
    if (banSubject === undefined) {
      const outcome = consumeRequest(stored, windows, policy, nowMs);
      if (outcome.state !== stored) this.write(key, outcome.state);
      decision = outcome.decision;
    } else {
      const banKey = banKeyOf(key, banSubject);
      const outcome = consumeSharedRequest(stored, this.read(banKey, nowMs), windows, policy, nowMs);
      if (outcome.quota) this.write(key, outcome.quota);
      if (outcome.ban) this.write(banKey, outcome.ban);
      decision = outcome.decision;
    }
    if (nowMs >= this.nextSweepAtMs || this.entries.size > this.maxKeys) this.sweep(nowMs);
    return decision;
  }

  async peek(key: string, windows: readonly WindowSpec[], _policy: BanPolicy, nowMs: number, banSubject?: string): Promise<RateLimitDecision> {
    const stored = this.read(key, nowMs);
    if (banSubject === undefined) return peekRequest(stored, windows, nowMs);
    return peekSharedRequest(stored, this.read(banKeyOf(key, banSubject), nowMs), windows, nowMs);
  }

  async close(): Promise<void> {
    this.entries.clear();
  }

  private read(key: string, nowMs: number): StoredKeyState | undefined {
    const entry = this.entries.get(key);
    return entry && nowMs < entry.forgetAtMs ? entry.state : undefined;
  }

  private write(key: string, state: StoredKeyState): void {
    // Re-inserting keeps the map in order of last write, oldest first, for eviction.
    this.entries.delete(key);
    this.entries.set(key, { state, forgetAtMs: forgetAtMs(state) });
  }

  private sweep(nowMs: number): void {
    this.nextSweepAtMs = nowMs + this.sweepEveryMs;
    for (const [key, entry] of this.entries) {
      if (nowMs >= entry.forgetAtMs) this.entries.delete(key);
    }
    if (this.entries.size <= this.maxKeys) return;
    const keep = Math.floor(this.maxKeys * 0.9);
    for (const key of this.entries.keys()) {
      if (this.entries.size <= keep) break;
      this.entries.delete(key);
    }
  }
}

/** Where a ban subject's rejections and ban are kept, beside the shared windows' record. */
function banKeyOf(key: string, banSubject: string): string {
  return `${key}:${banSubject}`;
}
