import { EntityManager } from 'typeorm';
import { execute, query } from '../../database/statements';
import { IdempotencyRecord, IdempotencyScope } from '../domain/idempotency-record.store';

/** The statements both stores send to `idempotency_records`, fixed and with bound parameters (docs/adr/0006). */
export const BY_SCOPE = 'WHERE api_key_id = ? AND idempotency_key = ?';
const FIND = `SELECT operation, fingerprint, status_code AS statusCode, response_body AS responseBody, response_location AS responseLocation, expires_at AS expiresAt FROM idempotency_records ${BY_SCOPE}`;
const FORGET_IF_EXPIRED = `DELETE FROM idempotency_records ${BY_SCOPE} AND expires_at <= ?`;

interface RecordRow {
  operation: string;
  fingerprint: string;
  responseLocation: string | null;
  statusCode: number | null;
  responseBody: string | null;
  /** MySQL answers a BIGINT as a string. */
  expiresAt: number | string;
}

/** The stored record of a scope, through `manager`: the unit of work's transaction if there is one (`txHost.tx`). */
export async function findRecord(manager: EntityManager, { apiKeyId, key }: IdempotencyScope): Promise<IdempotencyRecord | null> {
  const rows = await query<RecordRow>(manager, FIND, [apiKeyId, key]);
  if (rows.length === 0) return null;
  const [row] = rows;
  const outcome =
    row.statusCode === null || row.responseBody === null
      ? undefined
      : { status: Number(row.statusCode), body: row.responseBody, ...(row.responseLocation === null ? {} : { location: row.responseLocation }) };
  return { operation: row.operation, fingerprint: row.fingerprint, outcome, expiresAt: Number(row.expiresAt) };
}

/** Deletes the stored record of a scope if it expired at `now`. */
export async function forgetRecordIfExpired(manager: EntityManager, { apiKeyId, key }: IdempotencyScope, now: number): Promise<void> {
  await execute(manager, FORGET_IF_EXPIRED, [apiKeyId, key, now]);
}
