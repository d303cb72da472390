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

export interface IdempotencyRecord {
  readonly fingerprint: string;
  /** Absent while the first request is still being processed. */
  readonly outcome?: StoredOutcome;
  /** Epoch ms after which the record no longer counts. */
  readonly expiresAt: number;
}

/**
 * The records of idempotency keys, shared by every instance. `claim` is the
 * one arbiter between concurrent requests: it inserts on a unique
 * (API key, idempotency key), so exactly one of them wins.
 */
export abstract class IdempotencyRecordStore {
  /** Records the key as in progress; false when a record with that scope exists already. */
  abstract claim(scope: IdempotencyScope, fingerprint: string, expiresAt: number): Promise<boolean>;
  abstract find(scope: IdempotencyScope): Promise<IdempotencyRecord | null>;
  abstract complete(scope: IdempotencyScope, outcome: StoredOutcome, expiresAt: number): Promise<void>;
  /** Removes the claim of a request that failed, so its retry may run. */
  abstract release(scope: IdempotencyScope): Promise<void>;
  /** Removes the record of this scope if it expired at `now`. */
  abstract forgetIfExpired(scope: IdempotencyScope, now: number): Promise<void>;
  /** Removes at most `limit` expired records, found through the expiry index. */
  abstract removeExpired(now: number, limit: number): Promise<void>;
}
