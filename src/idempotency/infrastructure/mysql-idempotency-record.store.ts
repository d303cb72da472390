import { Injectable } from '@nestjs/common';
import { isDuplicateKey } from '../../database/duplicate-key';
import { TypeOrmUnitOfWork } from '../../database/typeorm-unit-of-work';
import { IdempotencyClaim, IdempotencyRecord, IdempotencyRecordStore, IdempotencyScope, StoredOutcome } from '../domain/idempotency-record.store';
import { BY_SCOPE, findRecord, forgetRecordIfExpired } from './idempotency-records.sql';

/** A claim still in progress and still this request's. */
const BY_CLAIM = `${BY_SCOPE} AND claim_token = ? AND status_code IS NULL`;

const SQL = {
  claim: 'INSERT INTO idempotency_records (api_key_id, idempotency_key, fingerprint, claim_token, expires_at) VALUES (?, ?, ?, ?, ?)',
  renew: `UPDATE idempotency_records SET expires_at = ? ${BY_CLAIM}`,
  complete: `UPDATE idempotency_records SET status_code = ?, response_body = ?, expires_at = ? ${BY_CLAIM}`,
  release: `DELETE FROM idempotency_records ${BY_CLAIM}`,
  /** A read that takes no locks (see removeExpired). */
  expiredBatch: 'SELECT api_key_id AS apiKeyId, idempotency_key AS `key` FROM idempotency_records WHERE expires_at <= ? ORDER BY expires_at LIMIT ?',
} as const;

/** Rechecks the expiry, since a retry may have claimed the key again since the read; the hint keeps the optimizer off the expiry index. */
const deleteExpired = (rows: number) =>
  `DELETE r FROM idempotency_records r FORCE INDEX (PRIMARY) WHERE (api_key_id, idempotency_key) IN (${Array(rows).fill('(?, ?)').join(', ')}) AND expires_at <= ?`;

/**
 * The records on MySQL, where every instance shares them: a claim is a row
 * committed on its own, so a retry on any instance meets it at once, and the
 * outcome is the claim's row updated in the operation's unit of work.
 */
@Injectable()
export class MysqlIdempotencyRecordStore extends IdempotencyRecordStore {
  constructor(private readonly unitOfWork: TypeOrmUnitOfWork) {
    super();
  }

  async claim({ scope, token }: IdempotencyClaim, fingerprint: string, expiresAt: number): Promise<boolean> {
    try {
      await this.unitOfWork.execute(SQL.claim, [scope.apiKeyId, scope.key, fingerprint, token, expiresAt]);
      return true;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  find(scope: IdempotencyScope): Promise<IdempotencyRecord | null> {
    return findRecord(this.unitOfWork, scope);
  }

  async renew({ scope, token }: IdempotencyClaim, expiresAt: number): Promise<void> {
    await this.unitOfWork.execute(SQL.renew, [expiresAt, scope.apiKeyId, scope.key, token]);
  }

  async complete({ scope, token }: IdempotencyClaim, outcome: StoredOutcome, expiresAt: number): Promise<boolean> {
    return (await this.unitOfWork.execute(SQL.complete, [outcome.status, outcome.body, expiresAt, scope.apiKeyId, scope.key, token])) === 1;
  }

  async release({ scope, token }: IdempotencyClaim): Promise<void> {
    await this.unitOfWork.execute(SQL.release, [scope.apiKeyId, scope.key, token]);
  }

  forgetIfExpired(scope: IdempotencyScope, now: number): Promise<void> {
    return forgetRecordIfExpired(this.unitOfWork, scope, now);
  }

  /**
   * Finds a batch with a read that takes no locks, then deletes those rows by
   * primary key: a locking scan of the expiry index would lock the entry just
   * past its range, which is where creates in progress keep their claims, and
   * wait on them or deadlock with them (docs/adr/0021).
   */
  async removeExpired(now: number, limit: number): Promise<void> {
    const manager = await this.unitOfWork.manager();
    const expired: Array<{ apiKeyId: number; key: string }> = await manager.query(SQL.expiredBatch, [now, limit]);
    if (expired.length === 0) return;
    await manager.query(deleteExpired(expired.length), [...expired.flatMap((row) => [row.apiKeyId, row.key]), now]);
  }
}
