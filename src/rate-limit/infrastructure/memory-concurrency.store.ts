import { ConcurrencyStore, type InFlightSlot } from '../domain/concurrency-store';

/**
 * The requests in flight of one process, by key: a count, which the process's
 * own end empties, so it needs no lease. A key holding none is forgotten, so
 * memory grows with the callers in flight only.
 */
export class MemoryConcurrencyStore extends ConcurrencyStore {
  private readonly inFlight = new Map<string, number>();

  /** The keys holding places now. */
  get size(): number {
    return this.inFlight.size;
  }

  /** Places held by `key` now. */
  heldBy(key: string): number {
    return this.inFlight.get(key) ?? 0;
  }

  async acquire(key: string, cap: number): Promise<InFlightSlot | null> {
    const held = this.heldBy(key);
    if (held >= cap) return null;
    this.inFlight.set(key, held + 1);
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        const left = this.heldBy(key) - 1;
        if (left > 0) this.inFlight.set(key, left);
        else this.inFlight.delete(key);
      },
    };
  }
}
