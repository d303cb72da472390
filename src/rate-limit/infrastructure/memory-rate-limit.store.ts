import { type BanPolicy, type RateLimitDecision, RateLimitStore, type WindowSpec } from '../domain/rate-limit-store';
import { consumeRequest, forgetAtMs, type StoredKeyState } from '../domain/rate-limit-windows';

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

  async consume(key: string, windows: readonly WindowSpec[], policy: BanPolicy, nowMs: number): Promise<RateLimitDecision> {
    const entry = this.entries.get(key);
    const stored = entry && nowMs < entry.forgetAtMs ? entry.state : undefined;
    const { state, decision } = consumeRequest(stored, windows, policy, nowMs);
    if (state !== stored) {
      // Re-inserting keeps the map in order of last write, oldest first, for eviction.
      this.entries.delete(key);
      this.entries.set(key, { state, forgetAtMs: forgetAtMs(state) });
    }
    if (nowMs >= this.nextSweepAtMs || this.entries.size > this.maxKeys) this.sweep(nowMs);
    return decision;
  }

  async close(): Promise<void> {
    this.entries.clear();
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
