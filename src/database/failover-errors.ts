import { ArgumentsHost, Catch } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { QueryFailedError } from 'typeorm';
import { AllExceptionsFilter } from '../errors/all-exceptions.filter';
import { DomainError } from '../errors/domain-error';
import { SERVICE_UNAVAILABLE } from '../errors/error-code';

/** Long enough for the failover to take the next node; a retry sooner would most likely meet the same loss. */
export const DATABASE_RETRY_AFTER_SECONDS = 1;

/** The store could not take the request's statements; nothing of it was kept, and a retry (with its Idempotency-Key) is safe. */
export class DatabaseUnavailableError extends DomainError {
  readonly code = SERVICE_UNAVAILABLE;

  constructor() {
    super(`The database is unavailable; retry after ${DATABASE_RETRY_AFTER_SECONDS} s (Retry-After)`);
  }
}

/** Codes of a connection that failed, ended under a statement, or reached a Galera node not ready for statements. */
const NODE_LOST = new Set([
  'DATABASE_NODES_UNAVAILABLE',
  'PROTOCOL_CONNECTION_LOST',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ER_UNKNOWN_COM_ERROR',
]);

function driverFields(error: unknown): { code?: unknown; fatal?: unknown } | undefined {
  const driverError: unknown = error instanceof QueryFailedError ? error.driverError : error;
  return typeof driverError === 'object' && driverError !== null ? driverError : undefined;
}

/** Whether the statement failed because its node was lost or unfit (mysql2 marks every error that ends a connection as fatal). */
export function isNodeUnavailable(error: unknown): boolean {
  const fields = driverFields(error);
  return fields !== undefined && (fields.fatal === true || NODE_LOST.has(String(fields.code)));
}

/** Whether the transaction was undone to break a deadlock; on Galera, also how a commit that fails certification against another node's write ends. */
export function isCertificationConflict(error: unknown): boolean {
  return driverFields(error)?.code === 'ER_LOCK_DEADLOCK';
}

/**
 * The global filter, with a lost node or a certification conflict answered
 * 503 with Retry-After instead of 500: the request's transaction did not
 * commit, and the next node takes a retry. Registered after ErrorsModule's
 * filter, so Nest tries it first.
 */
@Catch()
export class FailoverExceptionsFilter extends AllExceptionsFilter {
  override catch(exception: unknown, host: ArgumentsHost): void {
    if (!isNodeUnavailable(exception) && !isCertificationConflict(exception)) return super.catch(exception, host);
    void host.switchToHttp().getResponse<FastifyReply>().header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
    super.catch(new DatabaseUnavailableError(), host);
  }
}
