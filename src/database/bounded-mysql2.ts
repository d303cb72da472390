import { Logger } from '@nestjs/common';
import * as mysql2 from 'mysql2';
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

/** What TypeORM's MySQL driver uses of a pooled connection and of the pools. */
interface PooledConnection {
  query(sql: string, callback: (error: Error | null) => void): unknown;
  release(): void;
  destroy(): void;
}
type Acquired = (error: Error | null, connection?: PooledConnection) => void;
interface Pool {
  getConnection(callback: Acquired): void;
  end(callback?: (error?: Error | null) => void): void;
}
interface PoolCluster {
  add(id: string, config: object): void;
  getConnection(pattern: string, callback: Acquired): void;
  end(callback?: (error?: Error | null) => void): void;
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
 * Gives up on a connection that has not come within the bound: mysql2's pool
 * queues a request for one without a time limit, and has no option for it. A
 * connection that arrives after its request gave up goes straight back to the
 * pool. A connection met for the first time gets the session bounds before it
 * is handed over.
 */
function acquireWithin(bounds: DatabaseBounds, acquire: (callback: Acquired) => void, callback: Acquired): void {
  let waiting = true;
  const timer = setTimeout(() => {
    waiting = false;
    callback(new DatabaseUnavailableError(`no database connection within ${bounds.acquireTimeoutMs} ms`));
  }, bounds.acquireTimeoutMs);
  const hand = (error: Error | null, connection?: PooledConnection) => {
    if (!waiting) {
      connection?.release();
      // The request that wanted it was answered 503 already; the log keeps what became of the connection.
      if (error) logger.warn(`A database connection failed after its request gave up: ${describeFailure(error)}`);
      return;
    }
    waiting = false;
    clearTimeout(timer);
    callback(error, connection);
  };
  acquire((error, connection) => {
    if (error || !connection) hand(error ?? new Error('the pool gave no connection'));
    else if (bounded.has(connection) || !waiting) hand(null, connection);
    else {
      connection.query(sessionBoundsSql(bounds), (failure) => {
        if (failure) {
          // A connection whose session could not be bounded is not used at all.
          connection.destroy();
          hand(failure);
        } else {
          bounded.add(connection);
          hand(null, connection);
        }
      });
    }
  });
}

/** The connections whose session bounds are set; a connection keeps them for its life, as the pool never resets it. */
const bounded = new WeakSet<PooledConnection>();

/** A mysql2 pool whose every connection is had within the bounds (see acquireWithin). */
export class BoundedPool implements Pool {
  constructor(
    private readonly pool: Pool,
    private readonly bounds: DatabaseBounds,
  ) {}

  getConnection(callback: Acquired): void {
    acquireWithin(this.bounds, (acquired) => this.pool.getConnection(acquired), callback);
  }

  end(callback?: (error?: Error | null) => void): void {
    this.pool.end(callback);
  }
}

class BoundedPoolCluster implements PoolCluster {
  constructor(
    private readonly cluster: PoolCluster,
    private readonly bounds: DatabaseBounds,
  ) {}

  add(id: string, config: object): void {
    this.cluster.add(id, config);
  }

  getConnection(pattern: string, callback: Acquired): void {
    acquireWithin(this.bounds, (acquired) => this.cluster.getConnection(pattern, acquired), callback);
  }

  end(callback?: (error?: Error | null) => void): void {
    this.cluster.end(callback);
  }
}

/**
 * mysql2 as TypeORM's `driver` option takes it (the module TypeORM would
 * load itself), with every pool bounded as above (docs/adr/0038).
 */
export function boundedMysql2(bounds: DatabaseBounds): object {
  return {
    ...mysql2,
    createPool: (config: object): Pool => new BoundedPool(mysql2.createPool(config) as unknown as Pool, bounds),
    createPoolCluster: (config: object): PoolCluster => new BoundedPoolCluster(mysql2.createPoolCluster(config) as unknown as PoolCluster, bounds),
  };
}
