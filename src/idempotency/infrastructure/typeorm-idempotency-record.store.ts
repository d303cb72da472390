import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { isDuplicateKey } from '../../database/duplicate-key';
import { IdempotencyRecord, IdempotencyRecordStore, IdempotencyScope, StoredOutcome } from '../domain/idempotency-record.store';
import { IdempotencyRecordOrmEntity } from './idempotency-record.orm-entity';

const BY_SCOPE = 'WHERE api_key_id = ? AND idempotency_key = ?';

/** Fixed statements with bound parameters, for the reason docs/adr/0006 gives: each is prepared once and reused. */
const SQL = {
  claim: 'INSERT INTO idempotency_records (api_key_id, idempotency_key, fingerprint, expires_at) VALUES (?, ?, ?, ?)',
  find: `SELECT fingerprint, status_code AS statusCode, response_body AS responseBody, expires_at AS expiresAt FROM idempotency_records ${BY_SCOPE}`,
  complete: `UPDATE idempotency_records SET status_code = ?, response_body = ?, expires_at = ? ${BY_SCOPE}`,
  release: `DELETE FROM idempotency_records ${BY_SCOPE} AND status_code IS NULL`,
  forgetIfExpired: `DELETE FROM idempotency_records ${BY_SCOPE} AND expires_at <= ?`,
} as const;

/** Both delete through the expiry index, a bounded batch at a time; SQLite has no DELETE … LIMIT by default. */
const REMOVE_EXPIRED = {
  mysql: 'DELETE FROM idempotency_records WHERE expires_at <= ? ORDER BY expires_at LIMIT ?',
  sqlite: `DELETE FROM idempotency_records WHERE rowid IN
    (SELECT rowid FROM idempotency_records WHERE expires_at <= ? ORDER BY expires_at LIMIT ?)`,
} as const;

@Injectable()
export class TypeOrmIdempotencyRecordStore extends IdempotencyRecordStore {
  constructor(@InjectRepository(IdempotencyRecordOrmEntity) private readonly records: Repository<IdempotencyRecordOrmEntity>) {
    super();
  }

  async claim({ apiKeyId, key }: IdempotencyScope, fingerprint: string, expiresAt: number): Promise<boolean> {
    try {
      await this.records.query(SQL.claim, [apiKeyId, key, fingerprint, expiresAt]);
      return true;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  async find({ apiKeyId, key }: IdempotencyScope): Promise<IdempotencyRecord | null> {
    const rows: Array<{ fingerprint: string; statusCode: number | null; responseBody: string | null; expiresAt: number | string }> =
      await this.records.query(SQL.find, [apiKeyId, key]);
    if (rows.length === 0) return null;
    const [row] = rows;
    const outcome = row.statusCode === null || row.responseBody === null ? undefined : { status: Number(row.statusCode), body: row.responseBody };
    return { fingerprint: row.fingerprint, outcome, expiresAt: Number(row.expiresAt) };
  }

  async complete({ apiKeyId, key }: IdempotencyScope, outcome: StoredOutcome, expiresAt: number): Promise<void> {
    await this.records.query(SQL.complete, [outcome.status, outcome.body, expiresAt, apiKeyId, key]);
  }

  async release({ apiKeyId, key }: IdempotencyScope): Promise<void> {
    await this.records.query(SQL.release, [apiKeyId, key]);
  }

  async forgetIfExpired({ apiKeyId, key }: IdempotencyScope, now: number): Promise<void> {
    await this.records.query(SQL.forgetIfExpired, [apiKeyId, key, now]);
  }

  async removeExpired(now: number, limit: number): Promise<void> {
    const driver = this.records.manager.connection.options.type === 'mysql' ? 'mysql' : 'sqlite';
    await this.records.query(REMOVE_EXPIRED[driver], [now, limit]);
  }
}
