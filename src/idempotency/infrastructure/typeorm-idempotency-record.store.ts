import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, LessThanOrEqual, QueryFailedError, Repository } from 'typeorm';
import { IdempotencyRecord, IdempotencyRecordStore, IdempotencyScope, StoredOutcome } from '../domain/idempotency-record.store';
import { IdempotencyRecordOrmEntity } from './idempotency-record.orm-entity';

const FIND = `SELECT fingerprint, status_code AS statusCode, response_body AS responseBody, expires_at AS expiresAt
  FROM idempotency_records WHERE api_key_id = ? AND idempotency_key = ?`;

/** Both delete through the expiry index, a bounded batch at a time; SQLite has no DELETE … LIMIT by default. */
const REMOVE_EXPIRED = {
  mysql: 'DELETE FROM idempotency_records WHERE expires_at <= ? ORDER BY expires_at LIMIT ?',
  sqlite: `DELETE FROM idempotency_records WHERE rowid IN
    (SELECT rowid FROM idempotency_records WHERE expires_at <= ? ORDER BY expires_at LIMIT ?)`,
} as const;

/** The duplicate-key error each driver raises when a claim meets an existing record. */
function isDuplicateKey(error: unknown): boolean {
  if (!(error instanceof QueryFailedError)) return false;
  const code = (error.driverError as { code?: string } | undefined)?.code;
  return code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

@Injectable()
export class TypeOrmIdempotencyRecordStore extends IdempotencyRecordStore {
  constructor(@InjectRepository(IdempotencyRecordOrmEntity) private readonly records: Repository<IdempotencyRecordOrmEntity>) {
    super();
  }

  async claim({ apiKeyId, key }: IdempotencyScope, fingerprint: string, expiresAt: number): Promise<boolean> {
    try {
      await this.records.insert({ apiKeyId, idempotencyKey: key, fingerprint, statusCode: null, responseBody: null, expiresAt });
      return true;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  async find({ apiKeyId, key }: IdempotencyScope): Promise<IdempotencyRecord | null> {
    const rows: Array<{ fingerprint: string; statusCode: number | null; responseBody: string | null; expiresAt: number | string }> =
      await this.records.query(FIND, [apiKeyId, key]);
    if (rows.length === 0) return null;
    const [row] = rows;
    const outcome = row.statusCode === null || row.responseBody === null ? undefined : { status: Number(row.statusCode), body: row.responseBody };
    return { fingerprint: row.fingerprint, outcome, expiresAt: Number(row.expiresAt) };
  }

  async complete({ apiKeyId, key }: IdempotencyScope, outcome: StoredOutcome, expiresAt: number): Promise<void> {
    await this.records.update({ apiKeyId, idempotencyKey: key }, { statusCode: outcome.status, responseBody: outcome.body, expiresAt });
  }

  async release({ apiKeyId, key }: IdempotencyScope): Promise<void> {
    await this.records.delete({ apiKeyId, idempotencyKey: key, statusCode: IsNull() });
  }

  async forgetIfExpired({ apiKeyId, key }: IdempotencyScope, now: number): Promise<void> {
    await this.records.delete({ apiKeyId, idempotencyKey: key, expiresAt: LessThanOrEqual(now) });
  }

  async removeExpired(now: number, limit: number): Promise<void> {
    const driver = this.records.manager.connection.options.type === 'mysql' ? 'mysql' : 'sqlite';
    await this.records.query(REMOVE_EXPIRED[driver], [now, limit]);
  }
}
