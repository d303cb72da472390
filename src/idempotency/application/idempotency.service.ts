import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { Clock } from '../../config/clock';
import { fingerprintOf, parseIdempotencyKey } from '../domain/idempotency-key';
import { IdempotencyKeyInUseError, IdempotencyKeyReusedError } from '../domain/idempotency.errors';
import { IdempotencyRecordStore, IdempotencyScope } from '../domain/idempotency-record.store';

/** What an operation answers: its status and a JSON body. */
export interface Outcome<T> {
  readonly status: number;
  readonly body: T;
}

export interface IdempotentRequest {
  /** The caller's API key id: keys of different callers never meet. */
  readonly apiKeyId: number;
  /** The Idempotency-Key as sent; undefined when the request has none. */
  readonly key: string | undefined;
  /** The request body as sent, compared with the first request's. */
  readonly payload: unknown;
}

/**
 * How long a claim holds without an outcome: a request still unanswered after
 * this is taken for lost with its instance, so the key does not stay in use for a whole TTL.
 */
export const IN_PROGRESS_LEASE_MS = 60_000;
/** Expired records are removed in batches this small, at most once per interval and instance. */
export const SWEEP_BATCH = 500;
export const SWEEP_INTERVAL_MS = 60_000;

/**
 * Runs an operation at most once per (API key, Idempotency-Key): the first
 * request claims the key, runs the operation and stores its outcome; a retry
 * with the same body gets that outcome again, marked as replayed.
 */
@Injectable()
export class IdempotencyService {
  private nextSweepAt = 0;

  constructor(
    private readonly records: IdempotencyRecordStore,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  async perform<T>(request: IdempotentRequest, operation: () => Promise<Outcome<T>>): Promise<Outcome<T> & { replayed: boolean }> {
    if (request.key === undefined) return { ...(await operation()), replayed: false };
    const scope: IdempotencyScope = { apiKeyId: request.apiKeyId, key: parseIdempotencyKey(request.key) };
    const fingerprint = fingerprintOf(request.payload);
    // A second round only when the record met was expired or gone: another request may claim it first.
    for (let round = 0; round < 2; round++) {
      const now = this.clock.now();
      if (await this.records.claim(scope, fingerprint, now + IN_PROGRESS_LEASE_MS)) return this.performClaimed(scope, operation);
      const record = await this.records.find(scope);
      if (record === null) continue;
      if (record.expiresAt <= now) {
        await this.records.forgetIfExpired(scope, now);
        continue;
      }
      if (record.fingerprint !== fingerprint) throw new IdempotencyKeyReusedError();
      if (record.outcome === undefined) throw new IdempotencyKeyInUseError();
      return { status: record.outcome.status, body: JSON.parse(record.outcome.body) as T, replayed: true };
    }
    throw new IdempotencyKeyInUseError();
  }

  private async performClaimed<T>(scope: IdempotencyScope, operation: () => Promise<Outcome<T>>): Promise<Outcome<T> & { replayed: boolean }> {
    let outcome: Outcome<T>;
    try {
      outcome = await operation();
    } catch (error) {
      await this.records.release(scope);
      throw error;
    }
    const now = this.clock.now();
    await this.records.complete(scope, { status: outcome.status, body: JSON.stringify(outcome.body) }, now + this.config.idempotencyTtlSeconds * 1000);
    await this.removeExpiredWhenDue(now);
    return { ...outcome, replayed: false };
  }

  private async removeExpiredWhenDue(now: number): Promise<void> {
    if (now < this.nextSweepAt) return;
    this.nextSweepAt = now + SWEEP_INTERVAL_MS;
    await this.records.removeExpired(now, SWEEP_BATCH);
  }
}
