/** What a create answered, kept to answer its retries the same. */
export interface StoredOutcome {
  readonly status: number;
  /** The response body as JSON text. */
  readonly body: string;
  /** The answer's Location, which a replay carries too. */
  readonly location?: string;
}

/**
 * Why an outcome could not have been stored, or undefined: only an operation
 * that succeeded stores its answer, and its body is the JSON it sent, which a
 * retry is answered with.
 */
export function storedOutcomeProblem({ status, body }: StoredOutcome): string | undefined {
  if (!Number.isInteger(status) || status < 200 || status > 299) return 'a stored answer has a success status, 200 to 299';
  try {
    JSON.parse(body);
    return undefined;
  } catch {
    return 'a stored answer has a JSON body';
  }
}

/** Whose key it is (the caller's API key id) and the key itself. */
export interface IdempotencyScope {
  readonly apiKeyId: number;
  readonly key: string;
}

/** One request's hold on a key. The token is the request's own, so no other request can complete or release it. */
export interface IdempotencyClaim {
  readonly scope: IdempotencyScope;
  readonly token: string;
  /** The operation claiming the key (`POST /v1/pets`), which its record belongs to. */
  readonly operation: string;
}

export interface IdempotencyRecord {
  readonly operation: string;
  readonly fingerprint: string;
  /** Absent while the first request is still being processed. */
  readonly outcome?: StoredOutcome;
  /** Epoch ms after which the record no longer counts: the outcome's TTL, or never while a claim's request runs. */
  readonly expiresAt: number;
}

/**
 * The records of idempotency keys. A request claims its key, runs and stores
 * its outcome in one unit of work; the record is unique per (API key,
 * idempotency key), so of two requests that both ran, only one completes.
 * What a concurrent request meets while a claim runs is the adapter's: on a
 * store every instance shares, the claim's row lock, which refuses it at once;
 * on the store one process writes, the claim held in that process's memory.
 */
export abstract class IdempotencyRecordStore {
  /** Claims the key in the unit of work in progress, for a record kept until `expiresAt`; false when a record with that scope exists already. */
  abstract claim(claim: IdempotencyClaim, fingerprint: string, expiresAt: number): Promise<boolean>;
  abstract find(scope: IdempotencyScope): Promise<IdempotencyRecord | null>;
  /**
   * Stores the outcome in the claim's unit of work, so it is committed with
   * what the operation wrote or not at all. False when another request
   * completed the key first: the unit must then be undone.
   */
  abstract complete(claim: IdempotencyClaim, outcome: StoredOutcome): Promise<boolean>;
  /** Forgets the claim of a request whose unit of work was undone, so its retry may run. */
  abstract release(claim: IdempotencyClaim): Promise<void>;
  /** Removes the record of this scope if it expired at `now`. */
  abstract forgetIfExpired(scope: IdempotencyScope, now: number): Promise<void>;
  /** Removes at most `limit` expired records, the oldest first, without waiting on requests in progress. */
  abstract removeExpired(now: number, limit: number): Promise<void>;
}
