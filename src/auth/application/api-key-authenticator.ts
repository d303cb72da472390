import { Injectable } from '@nestjs/common';
import { ApiKey } from '../domain/api-key';
import { ApiKeyRepository } from '../domain/api-key.repository';
import { hashApiKeySecret, hashesMatch, looksLikeApiKeySecret } from '../domain/api-key-secret';

/**
 * How long a verified (or refused) key is trusted without asking the store.
 * Revocations and plan changes take effect on every instance within this time.
 */
export const KEY_CACHE_TTL_MS = 4_000;
export const KEY_CACHE_MAX_ENTRIES = 10_000;

interface CacheEntry {
  readonly expiresAt: number;
  /** The lookup while it runs, then its answer. */
  key: ApiKey | null | Promise<ApiKey | null>;
}

/**
 * Turns a bearer token into an active ApiKey, or null. Keys are looked up by
 * hash and cached briefly in a bounded map, so the hot path costs no query;
 * concurrent requests with the same key share one lookup. A cached answer is
 * given at once rather than as a promise, so a request whose key is known
 * waits for nothing.
 */
@Injectable()
export class ApiKeyAuthenticator {
  private readonly cache = new Map<string, CacheEntry>();
  now: () => number = Date.now;

  constructor(private readonly keys: ApiKeyRepository) {}

  /** The cached answer itself when there is one; a promise only while the store is asked. */
  authenticate(token: string): ApiKey | null | Promise<ApiKey | null> {
    const hash = hashApiKeySecret(token);
    const now = this.now();
    const cached = this.cache.get(hash);
    if (cached && cached.expiresAt > now) return cached.key;
    // Checked only before the store is asked: a token in the cache passed this check when it was added.
    if (!looksLikeApiKeySecret(token)) return null;
    const entry: CacheEntry = { expiresAt: now + KEY_CACHE_TTL_MS, key: null };
    const lookup = this.lookup(hash).then(
      (key) => (entry.key = key),
      (error: unknown) => {
        // A failed lookup must not be remembered as "no such key".
        if (this.cache.get(hash) === entry) this.cache.delete(hash);
        throw error;
      },
    );
    entry.key = lookup;
    this.remember(hash, entry);
    return lookup;
  }

  private async lookup(hash: string): Promise<ApiKey | null> {
    const found = await this.keys.findByHash(hash);
    if (!found || found.key.revokedAt || !hashesMatch(found.keyHash, hash)) return null;
    return found.key;
  }

  private remember(hash: string, entry: CacheEntry): void {
    this.cache.delete(hash);
    if (this.cache.size >= KEY_CACHE_MAX_ENTRIES) {
      // Map iteration is insertion order: the first entry is the oldest.
      this.cache.delete(this.cache.keys().next().value as string);
    }
    this.cache.set(hash, entry);
  }
}
