import { Injectable } from '@nestjs/common';
import { isDuplicateKey } from '../../database/duplicate-key';
import { TypeOrmUnitOfWork } from '../../database/typeorm-unit-of-work';
import { IdempotencyClaim, IdempotencyRecord, IdempotencyRecordStore, IdempotencyScope, StoredOutcome } from '../domain/idempotency-record.store';

const BY_SCOPE = 'WHERE api_key_id = ? AND idempotency_key = ?';
/** A claim still in progress and still this request's. */
const BY_CLAIM = `${BY_SCOPE} AND claim_token = ? AND status_code IS NULL`;

/** Fixed statements with bound parameters, for the reason docs/adr/0006 gives: each is prepared once and reused. */
const SQL = {
  claim: 'INSERT INTO idempotency_records (api_key_id, idempotency_key, fingerprint, claim_token, expires_at) VALUES (?, ?, ?, ?, ?)',
  find: `SELECT fingerprint, status_code AS statusCode, response_body AS responseBody, expires_at AS expiresAt FROM idempotency_records ${BY_SCOPE}`,
  renew: `UPDATE idempotency_records SET expires_at = ? ${BY_CLAIM}`,
  complete: `UPDATE idempotency_records SET status_code = ?, response_body = ?, expires_at = ? ${BY_CLAIM}`,
  release: `DELETE FROM idempotency_records ${BY_CLAIM}`,
  forgetIfExpired: `DELETE FROM idempotency_records ${BY_SCOPE} AND expires_at <= ?`,
} as const;

/** SQLite deletes through the expiry index, a bounded batch at a time; it has no DELETE … LIMIT by default. */
const REMOVE_EXPIRED_SQLITE = `DELETE FROM idempotency_records WHERE rowid IN
  (SELECT rowid FROM idempotency_records WHERE expires_at <= ? ORDER BY expires_at LIMIT ?)`;

/**
 * MySQL finds a batch with a read that takes no locks, then deletes those rows
 * by primary key: a locking scan of the expiry index would lock the entry just
 * past its range, which is where creates in progress keep their claims, and
 * wait on them or deadlock with them (docs/adr/0021).
 */
const EXPIRED_BATCH_MYSQL = 'SELECT api_key_id AS apiKeyId, idempotency_key AS `key` FROM idempotency_records WHERE expires_at <= ? ORDER BY expires_at LIMIT ?';
/** Rechecks the expiry, since a retry may have claimed the key again since the read; the hint keeps the optimizer off the expiry index. */
const deleteExpiredMysql = (rows: number) =>
  `DELETE r FROM idempotency_records r FORCE INDEX (PRIMARY) WHERE (api_key_id, idempotency_key) IN (${Array(rows).fill('(?, ?)').join(', ')}) AND expires_at <= ?`;

/** Every statement goes through the unit of work, so `complete` joins the transaction of the operation it records. */
@Injectable()
export class TypeOrmIdempotencyRecordStore extends IdempotencyRecordStore {
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

  async find({ apiKeyId, key }: IdempotencyScope): Promise<IdempotencyRecord | null> {
    const rows: Array<{ fingerprint: string; statusCode: number | null; responseBody: string | null; expiresAt: number | string }> = await (
      await this.unitOfWork.manager()
    ).query(SQL.find, [apiKeyId, key]);
    if (rows.length === 0) return null;
    const [row] = rows;
    const outcome = row.statusCode === null || row.responseBody === null ? undefined : { status: Number(row.statusCode), body: row.responseBody };
    return { fingerprint: row.fingerprint, outcome, expiresAt: Number(row.expiresAt) };
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

  async forgetIfExpired({ apiKeyId, key }: IdempotencyScope, now: number): Promise<void> {
    await this.unitOfWork.execute(SQL.forgetIfExpired, [apiKeyId, key, now]);
  }

  async removeExpired(now: number, limit: number): Promise<void> {
    const manager = await this.unitOfWork.manager();
    if (manager.connection.options.type !== 'mysql') {
      await manager.query(REMOVE_EXPIRED_SQLITE, [now, limit]);
      return;
    }
    const expired: Array<{ apiKeyId: number; key: string }> = await manager.query(EXPIRED_BATCH_MYSQL, [now, limit]);
    if (expired.length === 0) return;
    await manager.query(deleteExpiredMysql(expired.length), [...expired.flatMap((row) => [row.apiKeyId, row.key]), now]);
  }
}
