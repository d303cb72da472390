import { Logger } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { DatabaseUnavailableError } from './database.errors';

interface DriverError {
  code?: unknown;
  errno?: unknown;
  /** mysql2 marks an error after which the connection is unusable. */
  fatal?: unknown;
}

/** What the driver said: the error a failed query wraps, or the driver's own error when no query ran (a connection that could not be had). */
function driverErrorOf(error: unknown): DriverError | undefined {
  if (error instanceof QueryFailedError) return error.driverError as DriverError | undefined;
  return typeof error === 'object' && error !== null ? (error as DriverError) : undefined;
}

/** The code the database driver gave a failed query; each driver names its errors its own way. */
function driverCode(error: unknown): string | undefined {
  return error instanceof QueryFailedError ? (error.driverError as { code?: string } | undefined)?.code : undefined;
}

/** Whether a write failed on a unique or primary key. */
export function isDuplicateKey(error: unknown): boolean {
  const code = driverCode(error);
  return code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/** Whether a MySQL statement waited on a row lock longer than `innodb_lock_wait_timeout`, or was chosen to break a deadlock. */
export function isLockConflict(error: unknown): boolean {
  const code = driverCode(error);
  return code === 'ER_LOCK_WAIT_TIMEOUT' || code === 'ER_LOCK_DEADLOCK';
}

/** The server out of reach, or a connection to it lost: Node's socket codes and mysql2's own. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
]);

/**
 * Server answers that say "not now": shutting down, full, a Galera node not
 * ready for statements, a statement stopped at its bound, a lock not had in
 * time (or a Galera certification conflict, which ends as a deadlock at
 * commit), or SQLite's file busy past its timeout.
 */
const NOT_NOW = new Set([
  'ER_SERVER_SHUTDOWN',
  'ER_UNKNOWN_COM_ERROR',
  'ER_CON_COUNT_ERROR',
  'ER_QUERY_INTERRUPTED',
  'ER_QUERY_TIMEOUT',
  'ER_LOCK_WAIT_TIMEOUT',
  'ER_LOCK_DEADLOCK',
  'SQLITE_BUSY',
]);

/** MariaDB's numbers that mysql2 has no name for: ER_STATEMENT_TIMEOUT (max_statement_time) and ER_CONNECTION_KILLED. */
const MARIADB_NOT_NOW = new Set([1969, 1927]);

/** Whether the database failed to serve in time, or could not be reached: the request may be sent again once it is back. */
export function isUnavailable(error: unknown): boolean {
  if (error instanceof DatabaseUnavailableError) return true;
  const driver = driverErrorOf(error);
  if (!driver) return false;
  const code = typeof driver.code === 'string' ? driver.code : undefined;
  if (code !== undefined && (UNREACHABLE.has(code) || NOT_NOW.has(code) || code.startsWith('SQLITE_BUSY'))) return true;
  return MARIADB_NOT_NOW.has(driver.errno as number) || driver.fatal === true;
}

/** A failure in words for the server's log: the driver's code and message, which name no password. */
export function describeFailure(error: unknown): string {
  if (error instanceof DatabaseUnavailableError) return error.reason;
  const code = driverErrorOf(error)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === 'string' && !message.startsWith(code) ? `${code}: ${message}` : message;
}

/** An outage turns every request into a 503: the log hears of it at most this often. */
const UNAVAILABLE_LOG_INTERVAL_MS = 10_000;
const logger = new Logger('Database');
let lastLoggedAt = Number.NEGATIVE_INFINITY;

/** The answer for a client when `error` says the database is unavailable (see isUnavailable), noted in the log; any other error as it was. */
export function unavailableOr(error: unknown): unknown {
  if (!isUnavailable(error)) return error;
  const unavailable = error instanceof DatabaseUnavailableError ? error : new DatabaseUnavailableError(describeFailure(error));
  const now = performance.now();
  if (now - lastLoggedAt >= UNAVAILABLE_LOG_INTERVAL_MS) {
    lastLoggedAt = now;
    logger.warn(`The database is unavailable, requests are answered 503 meanwhile: ${unavailable.reason}`);
  }
  return unavailable;
}
