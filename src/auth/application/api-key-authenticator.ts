import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { Clock } from '../../config/clock';
import { ApiKey, hasExpired } from '../domain/api-key';
import { ApiKeyRepository } from '../domain/api-key.repository';
import { hashApiKeySecret, hashesMatch, looksLikeApiKeySecret } from '../domain/api-key-secret';

/** The promise of the specification's decisions: a change to a key (revoke, set-plan, roll) holds on every instance within this. */
export const KEY_CHANGES_HOLD_WITHIN_SECONDS = 5;

/**
 * How long a verified (or refused) key is trusted without asking the store:
 * a second under the promise, so a lookup that is slow to answer still keeps it.
 */
export const KEY_CACHE_TTL_MS = KEY_CHANGES_HOLD_WITHIN_SECONDS * 1_000 - 1_000;
export const KEY_CACHE_MAX_ENTRIES = 10_000;

/**
 * lru-cache stores no null, so a refused key is kept as an answer without a key.
 * A rolled-over secret carries the end of its grace, checked on every use.
 */
interface Answer {
  readonly key: ApiKey | null;
  readonly validUntil?: Date | null;
}

/**
 * Turns a bearer token into an active ApiKey, or null. Keys are looked up by
 * hash and cached briefly in a bounded cache, so the hot path costs no query;
 * concurrent requests with the same key share one lookup (lru-cache's fetch).
 */
@Injectable()
export class ApiKeyAuthenticator {
  private readonly cache: LRUCache<string, Answer>;

  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly clock: Clock,
  ) {
    this.cache = new LRUCache<string, Answer>({
      max: KEY_CACHE_MAX_ENTRIES,
      // lru-cache keeps an entry while its age is at most `ttl`; ours is trusted for less than KEY_CACHE_TTL_MS.
      ttl: KEY_CACHE_TTL_MS - 1,
      // Read the clock on every check, so that a clock moved by hand in tests is seen at once.
      ttlResolution: 0,
      perf: clock,
      fetchMethod: (hash) => this.lookup(hash),
    });
  }

  async authenticate(token: string): Promise<ApiKey | null> {
    const hash = hashApiKeySecret(token);
    // Only a token shaped like a key is ever looked up and cached, so a cached answer needs no second look at the token.
    const answer = this.cache.get(hash) ?? (looksLikeApiKeySecret(token) ? await this.cache.fetch(hash) : undefined);
    const key = answer?.key ?? null;
    // Checked on every use, so a cached key stops at its expiry or grace end, not up to a cache lifetime later.
    const now = this.clock.now();
    if (!key || hasExpired(key, now) || (answer?.validUntil && answer.validUntil.getTime() <= now)) return null;
    return key;
  }

  private async lookup(hash: string): Promise<Answer> {
    const found = await this.keys.findByHash(hash);
    if (!found || found.key.revokedAt) return { key: null };
    if (hashesMatch(found.keyHash, hash)) return { key: found.key };
    const { previousKeyHash, previousKeyExpiresAt } = found;
    if (previousKeyHash && previousKeyExpiresAt && hashesMatch(previousKeyHash, hash)) {
      return { key: found.key, validUntil: previousKeyExpiresAt };
    }
    return { key: null };
  }
}
