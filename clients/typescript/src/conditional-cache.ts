/** An answer the client has seen, with the ETag the service gave it. */
export interface Tagged<T> {
  readonly etag: string;
  readonly value: T;
}

/**
 * The pages and pets the client has seen, by request, with their ETags: sent
 * back as `If-None-Match`, and returned again when the service answers 304.
 * Bounded: past `maxEntries` the least recently used goes.
 */
export class ConditionalCache {
  private readonly entries = new Map<string, Tagged<unknown>>();

  constructor(private readonly maxEntries: number) {}

  get<T>(key: string): Tagged<T> | undefined {
    const entry = this.entries.get(key);
    if (entry) {
      // Re-inserted, so the map stays ordered from least to most recently used.
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry as Tagged<T> | undefined;
  }

  set<T>(key: string, etag: string | null, value: T): void {
    this.entries.delete(key);
    if (etag === null || this.maxEntries <= 0) return;
    this.entries.set(key, { etag, value });
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries) break;
      this.entries.delete(oldest);
    }
  }
}
