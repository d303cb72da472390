/** What a create answered, kept to answer its retries the same. */
export interface StoredOutcome {
  readonly status: number;
  /** The response body as JSON text. */
  readonly body: string;
}

/** Whose key it is (the caller's API key id) and the key itself. */
export interface IdempotencyScope {
  readonly apiKeyId: number;
  readonly key: string;
}

/**
 * One request's hold on a key. The token is the request's own, so a request
 * whose claim lapsed and was taken by a retry can no longer renew, complete or
 * release it.
 */
export interface IdempotencyClaim {
  readonly scope: IdempotencyScope;
  readonly token: string;
}

export interface IdempotencyRecord {
  readonly fingerprint: string;
  /** Absent while the first request is still being processed. */
  readonly outcome?: StoredOutcome;
  /** Epoch ms after which the record no longer counts: the claim's lease, or the outcome's TTL. */
  readonly expiresAt: number;
}

/**
 * The records of idempotency keys. A claim marks a key in progress, so a
 * concurrent request with it is answered 409 instead of running; the record
 * is unique per (API key, idempotency key), so of two requests that both ran,
 * only one completes. Where the claim is kept (a row every instance sees, or
 * the memory of the one process writing the store) is the adapter's choice.
 */
export abstract class IdempotencyRecordStore {
  /** Records the key as in progress until `expiresAt`; false when a record with that scope exists already. */
  abstract claim(claim: IdempotencyClaim, fingerprint: string, expiresAt: number): Promise<boolean>;
  abstract find(scope: IdempotencyScope): Promise<IdempotencyRecord | null>;
  /** Extends a claim still in progress to `expiresAt`; nothing when the claim is no longer this one. */
  abstract renew(claim: IdempotencyClaim, expiresAt: number): Promise<void>;
  /**
   * Stores the outcome, kept until `expiresAt`, in the unit of work in
   * progress, so it is committed with what the operation wrote or not at all.
   * False when the claim is no longer this one: the unit must then be undone.
   */
  abstract complete(claim: IdempotencyClaim, outcome: StoredOutcome, expiresAt: number): Promise<boolean>;
  /** Removes the claim of a request that failed, so its retry may run. */
  abstract release(claim: IdempotencyClaim): Promise<void>;
  /** Removes the record of this scope if it expired at `now`. */
  abstract forgetIfExpired(scope: IdempotencyScope, now: number): Promise<void>;
  /** Removes at most `limit` expired records, the oldest first, without waiting on requests in progress. */
  abstract removeExpired(now: number, limit: number): Promise<void>;
}
