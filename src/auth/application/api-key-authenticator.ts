import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { Clock } from '../../config/clock';
import { ApiKey, hasExpired } from '../domain/api-key';
import { ApiKeyRepository } from '../domain/api-key.repository';
import { isNamedBy, KeyChange } from '../domain/key-change';
import { hashApiKeySecret, hashesMatch, looksLikeApiKeySecret } from '../domain/api-key-secret';

/** The promise of the specification's decisions: a change to a key (revoke, set-plan, roll) holds on every instance within this. */
export const KEY_CHANGES_HOLD_WITHIN_SECONDS = 5;

/**
 * How long a verified (or refused) key is trusted without asking the store:
 * a second under the promise, so a lookup that is slow to answer still keeps it.
 */
export const KEY_CACHE_TTL_MS = KEY_CHANGES_HOLD_WITHIN_SECONDS * 1_000 - 1_000;
/** Verified keys kept; refused ones are kept apart, in as many places, so that no miss can push a verified key out. */
export const KEY_CACHE_MAX_ENTRIES = 10_000;
/**
 * How long this instance remembers having verified a key, each verification
 * renewing it: such a key is looked up even from an address that keeps
 * failing, so a valid key behind a shared address is not locked out by a neighbour.
 */
export const KEY_VERIFIED_MEMORY_MS = 3_600_000;

/** How many keys the authenticator keeps of each kind, verified and refused; provided by AuthModule, smaller in specs. */
export class KeyCacheBounds {
  constructor(readonly maxEntries: number = KEY_CACHE_MAX_ENTRIES) {}
}

/** A verified key; a rolled-over secret carries the end of its grace, checked on every use. */
interface Answer {
  readonly key: ApiKey;
  readonly validUntil?: Date | null;
}

/**
 * Turns a bearer token into an active ApiKey, or null. Keys are looked up by
 * hash and cached briefly in a bounded cache, so the hot path costs no query;
 * concurrent requests with the same key share one lookup (lru-cache's fetch).
 * Refused keys are remembered apart, so a flood of made-up keys evicts only
 * other made-up keys.
 */
@Injectable()
export class ApiKeyAuthenticator {
  private readonly verified: LRUCache<string, Answer>;
  private readonly refused: LRUCache<string, true>;
  private readonly knownHashes: LRUCache<string, true>;

  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly clock: Clock,
    bounds: KeyCacheBounds = new KeyCacheBounds(),
  ) {
    // lru-cache keeps an entry while its age is at most `ttl`; ours is trusted for less than KEY_CACHE_TTL_MS.
    // The clock is read on every check, so that a clock moved by hand in tests is seen at once.
    const brief = { max: bounds.maxEntries, ttl: KEY_CACHE_TTL_MS - 1, ttlResolution: 0, perf: clock };
    this.verified = new LRUCache<string, Answer>({ ...brief, fetchMethod: (hash) => this.lookup(hash) });
    this.refused = new LRUCache<string, true>(brief);
    this.knownHashes = new LRUCache<string, true>({ ...brief, ttl: KEY_VERIFIED_MEMORY_MS - 1 });
  }

  async authenticate(token: string): Promise<ApiKey | null> {
    const hash = hashApiKeySecret(token);
    // Only a token shaped like a key is ever looked up and cached, so a cached answer needs no second look at the token.
    const answer = this.verified.get(hash) ?? (this.refused.has(hash) || !looksLikeApiKeySecret(token) ? undefined : await this.verified.fetch(hash));
    // Checked on every use, so a cached key stops at its expiry or grace end, not up to a cache lifetime later.
    return answer && isActive(answer, this.clock.now()) ? answer.key : null;
  }

  /** Drops the cached answers a change names, so the key's next request is looked up again (a revocation told through Redis). */
  forget(change: KeyChange): void {
    const named = [...this.verified.entries()].filter(([, answer]) => isNamedBy(change, answer.key)).map(([hash]) => hash);
    for (const hash of named) this.verified.delete(hash);
  }

  /**
   * Whether authenticating the token would ask the store about a key this
   * instance has not verified lately: no answer to it is cached and it was
   * not verified within KEY_VERIFIED_MEMORY_MS. Asks nothing.
   */
  wouldLookUpUnverified(token: string): boolean {
    const hash = hashApiKeySecret(token);
    if (this.verified.has(hash) || this.refused.has(hash) || this.knownHashes.has(hash)) return false;
    return looksLikeApiKeySecret(token);
  }

  /** The store's answer, cached among the verified keys; a refusal is kept apart, and undefined keeps it out of them. */
  private async lookup(hash: string): Promise<Answer | undefined> {
    const answer = await this.verify(hash);
    if (answer && isActive(answer, this.clock.now())) {
      this.knownHashes.set(hash, true);
      return answer;
    }
    this.knownHashes.delete(hash);
    this.refused.set(hash, true);
    return undefined;
  }

  private async verify(hash: string): Promise<Answer | undefined> {
    const found = await this.keys.findByHash(hash);
    if (!found || found.key.revokedAt) return undefined;
    if (hashesMatch(found.keyHash, hash)) return { key: found.key };
    const { previousKeyHash, previousKeyExpiresAt } = found;
    if (previousKeyHash && previousKeyExpiresAt && hashesMatch(previousKeyHash, hash)) {
      return { key: found.key, validUntil: previousKeyExpiresAt };
    }
    return undefined;
  }
}

function isActive({ key, validUntil }: Answer, now: number): boolean {
  return !hasExpired(key, now) && !(validUntil && validUntil.getTime() <= now);
}
