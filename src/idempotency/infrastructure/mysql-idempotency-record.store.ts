import { Injectable } from '@nestjs/common';
import { isDuplicateKey, isLockConflict } from '../../database/driver-errors';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { execute, query } from '../../database/statements';
import { IdempotencyKeyInUseError } from '../domain/idempotency.errors';
import { IdempotencyClaim, IdempotencyRecord, IdempotencyRecordStore, IdempotencyScope, StoredOutcome } from '../domain/idempotency-record.store';
import { BY_SCOPE, findRecord, forgetRecordIfExpired } from './idempotency-records.sql';

/** A claim still in progress and still this request's. */
const BY_CLAIM = `${BY_SCOPE} AND claim_token = ? AND status_code IS NULL`;

const SQL = {
  /**
   * A retry meets the first request's uncommitted row and fails at once rather than wait on its lock: MariaDB
   * runs the prefix in its executable comment (a lock wait of zero for this statement alone); MySQL skips it
   * and waits at most the session's lock wait (docs/adr/0038).
   */
  claim:
    '/*M! SET STATEMENT innodb_lock_wait_timeout = 0 FOR */ INSERT INTO idempotency_records (api_key_id, idempotency_key, operation, fingerprint, claim_token, expires_at) VALUES (?, ?, ?, ?, ?, ?)',
  /** Leaves the indexed expiry as the claim set it, so the update touches the row alone. */
  complete: `UPDATE idempotency_records SET status_code = ?, response_body = ?, response_location = ? ${BY_CLAIM}`,
  /** A read that takes no locks (see removeExpired). */
  expiredBatch: 'SELECT api_key_id AS apiKeyId, idempotency_key AS `key` FROM idempotency_records WHERE expires_at <= ? ORDER BY expires_at LIMIT ?',
} as const;

/** Rechecks the expiry, since a retry may have claimed the key again since the read; the hint keeps the optimizer off the expiry index. */
const deleteExpired = (rows: number) =>
  `DELETE r FROM idempotency_records r FORCE INDEX (PRIMARY) WHERE (api_key_id, idempotency_key) IN (${Array(rows).fill('(?, ?)').join(', ')}) AND expires_at <= ?`;

/**
 * The records on MySQL, where every instance shares them: a claim is a row
 * inserted by the operation's transaction and updated with its outcome at the
 * end of it. A retry on any instance inserting the same key meets that row's
 * lock and is refused at once, 409, holding nothing while the first request
 * runs; once it is done, a retry meets the committed outcome, or runs itself
 * if the first request's transaction was undone (docs/adr/0031, 0038).
 */
@Injectable()
export class MysqlIdempotencyRecordStore extends IdempotencyRecordStore {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {
    super();
  }

  async claim({ scope, token, operation }: IdempotencyClaim, fingerprint: string, expiresAt: number): Promise<boolean> {
    try {
      await execute(this.txHost.tx, SQL.claim, [scope.apiKeyId, scope.key, operation, fingerprint, token, expiresAt]);
      return true;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      if (isLockConflict(error)) throw new IdempotencyKeyInUseError();
      throw error;
    }
  }

  find(scope: IdempotencyScope): Promise<IdempotencyRecord | null> {
    return findRecord(this.txHost.tx, scope);
  }

  async complete({ scope, token }: IdempotencyClaim, outcome: StoredOutcome): Promise<boolean> {
    return (await execute(this.txHost.tx, SQL.complete, [outcome.status, outcome.body, outcome.location ?? null, scope.apiKeyId, scope.key, token])) === 1;
  }

  /** The claim was a row of the transaction just rolled back: nothing of it is left. */
  async release(): Promise<void> {}

  forgetIfExpired(scope: IdempotencyScope, now: number): Promise<void> {
    return forgetRecordIfExpired(this.txHost.tx, scope, now);
  }

  /**
   * Finds a batch with a read that takes no locks, then deletes those rows by
   * primary key: a locking scan of the expiry index would lock the entry just
   * past its range, which is where creates in progress keep their claims, and
   * wait on them or deadlock with them (docs/adr/0021).
   */
  async removeExpired(now: number, limit: number): Promise<void> {
    const expired = await query<{ apiKeyId: number; key: string }>(this.txHost.tx, SQL.expiredBatch, [now, limit]);
    if (expired.length === 0) return;
    await execute(this.txHost.tx, deleteExpired(expired.length), [...expired.flatMap((row) => [row.apiKeyId, row.key]), now]);
  }
}
