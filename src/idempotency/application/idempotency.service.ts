import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AppConfig } from '../../config/app-config';
import { Clock } from '../../config/clock';
import { UnitOfWork } from '../../database/unit-of-work';
import { fingerprintOf, parseIdempotencyKey } from '../domain/idempotency-key';
import { IdempotencyKeyInUseError, IdempotencyKeyReusedError } from '../domain/idempotency.errors';
import { IdempotencyClaim, IdempotencyRecordStore } from '../domain/idempotency-record.store';

/** What an operation answers: its status, a JSON body, and the Location of what it created. */
export interface Outcome<T> {
  readonly status: number;
  readonly body: T;
  readonly location?: string;
}

export interface IdempotentRequest {
  /** The caller's API key id: keys of different callers never meet. */
  readonly apiKeyId: number;
  /** The Idempotency-Key as sent; undefined when the request has none. */
  readonly key: string | undefined;
  /** Which operation the request is (`POST /v1/pets`): a key's record belongs to the operation that made it. */
  readonly operation: string;
  /** The request body as sent, compared with the first request's. */
  readonly payload: unknown;
}

/**
 * Runs an operation at most once per (API key, Idempotency-Key): the claim on
 * the key, the operation and its outcome are one unit of work, so they are
 * committed together or not at all, whatever happens to the process; a retry
 * with the same body gets the stored outcome again, marked as replayed. Call
 * it outside any unit of work: a retry must read what the first request
 * committed, not its own transaction's view.
 */
@Injectable()
export class IdempotencyService {
  constructor(
    private readonly records: IdempotencyRecordStore,
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  async perform<T>(request: IdempotentRequest, operation: () => Promise<Outcome<T>>): Promise<Outcome<T> & { replayed: boolean }> {
    if (request.key === undefined) return { ...(await operation()), replayed: false };
    const claim: IdempotencyClaim = {
      scope: { apiKeyId: request.apiKeyId, key: parseIdempotencyKey(request.key) },
      token: randomUUID(),
      operation: request.operation,
    };
    const fingerprint = fingerprintOf(request.payload);
    // A second round only when the record met was expired or gone: another request may claim it first.
    for (let round = 0; round < 2; round++) {
      const done = await this.performIfClaimed(claim, fingerprint, operation);
      if (done) return { ...done, replayed: false };
      const now = this.clock.now();
      const record = await this.records.find(claim.scope);
      if (record === null) continue;
      if (record.expiresAt <= now) {
        await this.records.forgetIfExpired(claim.scope, now);
        continue;
      }
      if (record.operation !== request.operation) throw new IdempotencyKeyReusedError('operation');
      if (record.fingerprint !== fingerprint) throw new IdempotencyKeyReusedError('body');
      if (record.outcome === undefined) throw new IdempotencyKeyInUseError();
      const { status, body, location } = record.outcome;
      return { status, body: JSON.parse(body) as T, location, replayed: true };
    }
    throw new IdempotencyKeyInUseError();
  }

  /** The claim, the operation and its outcome in one unit of work; undefined when the key was taken already. */
  private async performIfClaimed<T>(claim: IdempotencyClaim, fingerprint: string, operation: () => Promise<Outcome<T>>): Promise<Outcome<T> | undefined> {
    try {
      return await this.unitOfWork.run(async () => {
        if (!(await this.records.claim(claim, fingerprint, this.clock.now() + this.config.idempotencyTtlSeconds * 1000))) return undefined;
        const done = await operation();
        const stored = { status: done.status, body: JSON.stringify(done.body), location: done.location };
        // Lost means another process completed the same key first: undoing this unit leaves its outcome the only one.
        if (!(await this.records.complete(claim, stored))) {
          throw new IdempotencyKeyInUseError();
        }
        return done;
      });
    } catch (error) {
      await this.records.release(claim);
      throw error;
    }
  }
}
