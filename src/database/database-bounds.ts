import { Logger } from '@nestjs/common';
import { type BeforeQueryEvent, type EntitySubscriberInterface, EventSubscriber, type QueryRunner, type TransactionStartEvent } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { DatabaseUnavailableError } from './database.errors';
import { describeFailure } from './driver-errors';

const logger = new Logger('Database');

/** How long a request may wait on the database, as DATABASE_ACQUIRE_TIMEOUT_MS and DATABASE_STATEMENT_TIMEOUT_MS set it. */
export interface DatabaseBounds {
  /** The longest wait for a pooled connection, a new one's connect included. */
  readonly acquireTimeoutMs: number;
  /** The longest a statement runs before the server stops it. */
  readonly statementTimeoutMs: number;
}

export function databaseBoundsOf(config: AppConfig): DatabaseBounds {
  return { acquireTimeoutMs: config.databaseAcquireTimeoutMs, statementTimeoutMs: config.databaseStatementTimeoutMs };
}

/**
 * Set on each new connection: the server stops a statement that runs past the
 * bound (MariaDB's `max_statement_time`, in an executable comment MySQL skips),
 * and a row lock is waited on for as long at most (both servers).
 */
export function sessionBoundsSql({ statementTimeoutMs }: DatabaseBounds): string {
  const seconds = statementTimeoutMs / 1000;
  return `SET SESSION /*M! max_statement_time = ${seconds}, */ innodb_lock_wait_timeout = ${Math.max(1, Math.ceil(seconds))}`;
}

/**
 * Connects a query runner to a pooled connection within the bound: mysql2's
 * pool has no time limit on that wait (docs/adr/0053). A connection that comes
 * after the runner gave up goes straight back to the pool.
 */
export async function connectWithin(runner: QueryRunner, timeoutMs: number): Promise<void> {
  const connecting: Promise<unknown> = runner.connect();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), timeoutMs);
  });
  try {
    if ((await Promise.race([connecting, late])) !== 'late') return;
  } finally {
    clearTimeout(timer);
  }
  connecting.then(
    () => runner.release(),
    (error: unknown) => logger.warn(`A database connection failed after its request gave up: ${describeFailure(error)}`),
  );
  throw new DatabaseUnavailableError(`no database connection within ${timeoutMs} ms`);
}

/**
 * A TypeORM subscriber that holds a MySQL DataSource to its bounds: a
 * transaction, whoever begins it, has its connection within the acquire bound,
 * and a connection met for the first time gets the session bounds before its
 * first statement.
 */
export abstract class DatabaseBoundsSubscriber implements EntitySubscriberInterface {
  abstract readonly bounds: DatabaseBounds;
  /** The connections whose session bounds are set; a connection keeps them for its life, as the pool never resets it. */
  private readonly bounded = new WeakSet<object>();

  beforeTransactionStart({ queryRunner }: TransactionStartEvent): Promise<void> {
    return connectWithin(queryRunner, this.bounds.acquireTimeoutMs);
  }

  async beforeQuery({ queryRunner }: BeforeQueryEvent): Promise<void> {
    const connection = (await queryRunner.connect()) as object;
    if (this.bounded.has(connection)) return;
    // Marked first, so the statement below, which passes here too, is not bounded again.
    this.bounded.add(connection);
    try {
      await queryRunner.query(sessionBoundsSql(this.bounds));
    } catch (error) {
      this.bounded.delete(connection);
      throw error;
    }
  }
}

/** The subscriber for `subscribers` of a DataSource's options: TypeORM builds its subscribers itself, hence a class per set of bounds. */
export function databaseBoundsSubscriber(bounds: DatabaseBounds): new () => DatabaseBoundsSubscriber {
  class BoundedBy extends DatabaseBoundsSubscriber {
    readonly bounds = bounds;
  }
  // TypeORM builds only the subscribers its decorator registered.
  EventSubscriber()(BoundedBy);
  return BoundedBy;
}

/** Connects a runner outside a transaction within its DataSource's acquire bound; a DataSource without bounds connects on its first statement, as TypeORM does. */
export async function connectBounded(runner: QueryRunner): Promise<void> {
  const bounds = runner.connection.subscribers.find((subscriber) => subscriber instanceof DatabaseBoundsSubscriber)?.bounds;
  if (bounds) await connectWithin(runner, bounds.acquireTimeoutMs);
}
