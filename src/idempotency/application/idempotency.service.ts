import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AppConfig } from '../../config/app-config';
import { Clock } from '../../config/clock';
import { UnitOfWork } from '../../database/unit-of-work';
import { fingerprintOf, parseIdempotencyKey } from '../domain/idempotency-key';
import { IdempotencyKeyInUseError, IdempotencyKeyReusedError } from '../domain/idempotency.errors';
import { IdempotencyClaim, IdempotencyRecordStore } from '../domain/idempotency-record.store';

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

/** A running request renews its claim this many times per lease, so one or two late renewals do not lose it. */
export const RENEWALS_PER_LEASE = 3;
/** Expired records are removed in batches this small, at most once per interval and instance. */
export const SWEEP_BATCH = 500;
export const SWEEP_INTERVAL_MS = 60_000;

/**
 * Runs an operation at most once per (API key, Idempotency-Key): the first
 * request claims the key, runs the operation and stores its outcome in the
 * same unit of work as the operation's own writes; a retry with the same body
 * gets that outcome again, marked as replayed. A claim holds for a short
 * lease that its request renews while it runs, so a claim is taken over only
 * once its request is gone, and then its request can no longer complete it.
 * Call it outside any unit of work: the claim must hold before the operation runs, not from its commit.
 */
@Injectable()
export class IdempotencyService {
  private readonly logger = new Logger('Idempotency');
  private nextSweepAt = 0;

  constructor(
    private readonly records: IdempotencyRecordStore,
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  async perform<T>(request: IdempotentRequest, operation: () => Promise<Outcome<T>>): Promise<Outcome<T> & { replayed: boolean }> {
    if (request.key === undefined) return { ...(await operation()), replayed: false };
    const claim: IdempotencyClaim = { scope: { apiKeyId: request.apiKeyId, key: parseIdempotencyKey(request.key) }, token: randomUUID() };
    const fingerprint = fingerprintOf(request.payload);
    // A second round only when the record met was expired or gone: another request may claim it first.
    for (let round = 0; round < 2; round++) {
      const now = this.clock.now();
      if (await this.records.claim(claim, fingerprint, now + this.leaseMs)) return this.performClaimed(claim, operation);
      const record = await this.records.find(claim.scope);
      if (record === null) continue;
      if (record.expiresAt <= now) {
        await this.records.forgetIfExpired(claim.scope, now);
        continue;
      }
      if (record.fingerprint !== fingerprint) throw new IdempotencyKeyReusedError();
      if (record.outcome === undefined) throw new IdempotencyKeyInUseError();
      return { status: record.outcome.status, body: JSON.parse(record.outcome.body) as T, replayed: true };
    }
    throw new IdempotencyKeyInUseError();
  }

  private async performClaimed<T>(claim: IdempotencyClaim, operation: () => Promise<Outcome<T>>): Promise<Outcome<T> & { replayed: boolean }> {
    const renewal = this.renewWhileRunning(claim);
    let outcome: Outcome<T>;
    try {
      outcome = await this.unitOfWork.run(async () => {
        const done = await operation();
        const stored = { status: done.status, body: JSON.stringify(done.body) };
        // Lost means the lease ran out unrenewed and a retry took the key: undoing this unit leaves the retry's outcome the only one.
        if (!(await this.records.complete(claim, stored, this.clock.now() + this.config.idempotencyTtlSeconds * 1000))) {
          throw new IdempotencyKeyInUseError();
        }
        return done;
      });
    } catch (error) {
      clearInterval(renewal);
      // Should the release fail too, the claim lapses with its lease.
      await this.records.release(claim).catch(() => undefined);
      throw error;
    }
    clearInterval(renewal);
    await this.removeExpiredWhenDue(this.clock.now());
    return { ...outcome, replayed: false };
  }

  /** Started before the unit of work, so the renewals run outside its transaction, where other instances see them. */
  private renewWhileRunning(claim: IdempotencyClaim): NodeJS.Timeout {
    const renew = () => {
      // A renewal that fails only brings the lapse closer; completing checks the claim is still this request's.
      this.records.renew(claim, this.clock.now() + this.leaseMs).catch(() => undefined);
    };
    return setInterval(renew, this.leaseMs / RENEWALS_PER_LEASE).unref();
  }

  private get leaseMs(): number {
    return this.config.idempotencyLeaseSeconds * 1000;
  }

  /** Housekeeping after a create is committed: a sweep that fails (a deadlock with concurrent claims, say) must not turn that create into an error. */
  private async removeExpiredWhenDue(now: number): Promise<void> {
    if (now < this.nextSweepAt) return;
    this.nextSweepAt = now + SWEEP_INTERVAL_MS;
    try {
      await this.records.removeExpired(now, SWEEP_BATCH);
    } catch (error) {
      this.logger.warn(`Removing expired idempotency records failed (${(error as Error).message}); the next sweep tries again`);
    }
  }
}
