import { Injectable } from '@nestjs/common';
import { isDuplicateKey } from '../../database/driver-errors';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { outsideTheUnit } from '../../database/sqlite-transactions';
import { execute, query } from '../../database/statements';
import { IdempotencyClaim, IdempotencyRecord, IdempotencyRecordStore, IdempotencyScope, StoredOutcome } from '../domain/idempotency-record.store';
import { BY_SCOPE, findRecord, forgetRecordIfExpired } from './idempotency-records.sql';

interface HeldClaim {
  readonly token: string;
  readonly operation: string;
  readonly fingerprint: string;
  /** When the record, once written, expires. */
  readonly expiresAt: number;
}

const SQL = {
  exists: `SELECT 1 AS found FROM idempotency_records ${BY_SCOPE}`,
  insert:
    'INSERT INTO idempotency_records (api_key_id, idempotency_key, operation, fingerprint, status_code, response_body, response_location, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  /** Through the expiry index, a bounded batch at a time: SQLite has no DELETE … LIMIT by default. */
  removeExpired: `DELETE FROM idempotency_records WHERE rowid IN
    (SELECT rowid FROM idempotency_records WHERE expires_at <= ? ORDER BY expires_at LIMIT ?)`,
} as const;

const claimId = ({ apiKeyId, key }: IdempotencyScope): string => `${apiKeyId}:${key}`;

/**
 * The records on the embedded SQLite store, which writes one transaction at a
 * time and has no row locks for a retry to wait on (docs/adr/0024). So the
 * claim of a running request is held by this process, which answers a retry
 * meanwhile 409 at once, and the record is written once, with its outcome, in
 * the operation's unit of work. A process that dies takes its claims with it
 * and its unit is never committed. Another process on the same file running
 * the same key at the same time meets the record's primary key when it
 * completes: its unit is undone and it answers 409.
 */
@Injectable()
export class SqliteIdempotencyRecordStore extends IdempotencyRecordStore {
  private readonly claims = new Map<string, HeldClaim>();

  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {
    super();
  }

  async claim({ scope, token, operation }: IdempotencyClaim, fingerprint: string, expiresAt: number): Promise<boolean> {
    const id = claimId(scope);
    if (this.claims.has(id)) return false;
    // Held before the read, so a request of this process that arrives meanwhile meets it; kept only if no record is stored.
    this.claims.set(id, { token, operation, fingerprint, expiresAt });
    let free = false;
    try {
      // Outside the unit: a transaction begun by a read cannot take the write lock once another process has written (SQLITE_BUSY_SNAPSHOT).
      free = (await outsideTheUnit(() => query(this.txHost.tx, SQL.exists, [scope.apiKeyId, scope.key]))).length === 0;
      return free;
    } finally {
      if (!free) this.claims.delete(id);
    }
  }

  async find(scope: IdempotencyScope): Promise<IdempotencyRecord | null> {
    const held = this.claims.get(claimId(scope));
    // A held claim ends with its request (complete or release), so it never expires on its own.
    return held ? { operation: held.operation, fingerprint: held.fingerprint, expiresAt: Number.POSITIVE_INFINITY } : findRecord(this.txHost.tx, scope);
  }

  async complete({ scope, token }: IdempotencyClaim, outcome: StoredOutcome): Promise<boolean> {
    const id = claimId(scope);
    const held = this.claims.get(id);
    if (held?.token !== token) return false;
    try {
      await execute(this.txHost.tx, SQL.insert, [
        scope.apiKeyId,
        scope.key,
        held.operation,
        held.fingerprint,
        outcome.status,
        outcome.body,
        outcome.location ?? null,
        held.expiresAt,
      ]);
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
    // Until the unit commits, this process's retries wait for SQLite's one connection, then find the record.
    this.claims.delete(id);
    return true;
  }

  async release({ scope, token }: IdempotencyClaim): Promise<void> {
    const id = claimId(scope);
    if (this.claims.get(id)?.token === token) this.claims.delete(id);
  }

  forgetIfExpired(scope: IdempotencyScope, now: number): Promise<void> {
    return forgetRecordIfExpired(this.txHost.tx, scope, now);
  }

  async removeExpired(now: number, limit: number): Promise<void> {
    await execute(this.txHost.tx, SQL.removeExpired, [now, limit]);
  }
}
