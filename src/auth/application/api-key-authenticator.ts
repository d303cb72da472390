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

const NO_KEY: Promise<ApiKey | null> = Promise.resolve(null);

interface CacheEntry {
  readonly expiresAt: number;
  readonly key: Promise<ApiKey | null>;
}

/**
 * Turns a bearer token into an active ApiKey, or null. Keys are looked up by
 * hash and cached briefly in a bounded map, so the hot path costs no query;
 * concurrent requests with the same key share one lookup.
 */
@Injectable()
export class ApiKeyAuthenticator {
  private readonly cache = new Map<string, CacheEntry>();
  now: () => number = Date.now;

  constructor(private readonly keys: ApiKeyRepository) {}

  /** Not async: a cached key is handed back as the very promise stored, without wrapping it in another. */
  authenticate(token: string): Promise<ApiKey | null> {
    if (!looksLikeApiKeySecret(token)) return NO_KEY;
    const hash = hashApiKeySecret(token);
    const now = this.now();
    const cached = this.cache.get(hash);
    if (cached && cached.expiresAt > now) return cached.key;
    const key = this.lookup(hash);
    this.remember(hash, { expiresAt: now + KEY_CACHE_TTL_MS, key });
    return key;
  }

  private async lookup(hash: string): Promise<ApiKey | null> {
    try {
      const found = await this.keys.findByHash(hash);
      if (!found || found.key.revokedAt || !hashesMatch(found.keyHash, hash)) return null;
      return found.key;
    } catch (error) {
      // A failed lookup must not be remembered as "no such key".
      this.cache.delete(hash);
      throw error;
    }
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
