import { QueryFailedError } from 'typeorm';

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

/** A failure in words for the server's log: the driver's code and message, which name no password. */
export function describeFailure(error: unknown): string {
  const code = driverCode(error) ?? (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === 'string' && !message.startsWith(code) ? `${code}: ${message}` : message;
}
