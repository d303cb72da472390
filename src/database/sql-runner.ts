import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';

/** What the runner uses of a better-sqlite3 statement and connection. */
interface SqliteStatement {
  readonly reader: boolean;
  all(...parameters: unknown[]): unknown[];
  run(...parameters: unknown[]): { lastInsertRowid: number | bigint };
}
interface SqliteConnection {
  prepare(sql: string): SqliteStatement;
}
/** What the runner uses of the mysql2 pool that TypeORM's MySQL driver keeps, and of its connections. */
interface PooledConnection {
  query(sql: string, values: unknown[], callback: (error: Error | null, result: unknown) => void): void;
  release(): void;
}
interface MysqlPool {
  getConnection(callback: (error: Error | null, connection: PooledConnection) => void): void;
}

/**
 * Runs the fixed SQL of hot paths on the DataSource's own connections and
 * answers as `DataSource.query` does: the rows of a read; for a write, the
 * driver's result (mysql2's header with `insertId`) or, on SQLite, the new rowid.
 *
 * - MySQL: on a connection of the mysql2 pool that TypeORM's driver made (same
 *   connections, same options), given back as soon as the answer is in.
 *   `DataSource.query` would also make a QueryRunner, a promise wrapper around
 *   the connection and a copy of the rows, log, broadcast and wait for
 *   subscribers: a fifth of a get's CPU (README, "Performance"). The query is
 *   built only once a connection is free; mysql2's `pool.query` builds it
 *   first, and under load the queued queries lived long enough to be promoted
 *   to the old generation: 100 MB more RSS. Errors are the driver's own, not
 *   wrapped in TypeORM's QueryFailedError.
 * - SQLite (better-sqlite3, which answers synchronously, on the event loop
 *   itself): each statement is prepared once on TypeORM's connection and run
 *   directly, without TypeORM's per-query logger calls, subscriber broadcast
 *   and four awaits (3 to 4 of a get's 54 µs of CPU; README, "Performance").
 *   Every query also waits for the loop's check phase (setImmediate). Run
 *   inline, a query would make the server read, query and answer one request
 *   before it reads the next; deferred, every request that has arrived is read
 *   first, and their queries and answers then follow in one run, as they do
 *   when a networked database answers. Under concurrent load that batching
 *   nearly halves the CPU a request costs; a lone request waits one turn.
 *
 * Statements run on the same single connection as TypeORM's own queries, so
 * transactions and migrations see them exactly as they see `DataSource.query`.
 */
@Injectable()
export class SqlRunner {
  private readonly onEventLoop: boolean;
  private connection?: SqliteConnection;
  private readonly statements = new Map<string, SqliteStatement>();

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.onEventLoop = dataSource.options.type === 'better-sqlite3';
  }

  /** `sql` is fixed text with `?` placeholders: SQLite keeps one prepared statement per distinct text. */
  query<T>(sql: string, parameters: unknown[]): Promise<T> {
    return this.onEventLoop ? this.onSqlite<T>(sql, parameters) : this.onPool<T>(sql, parameters);
  }

  private onPool<T>(sql: string, parameters: unknown[]): Promise<T> {
    // Read at each query: a DataSource initialized again has a new pool.
    const { pool } = this.dataSource.driver as unknown as { pool: MysqlPool };
    return new Promise<T>((resolve, reject) =>
      pool.getConnection((unavailable, connection) => {
        if (unavailable) return reject(unavailable);
        const answer = (error: Error | null, result?: unknown) => {
          connection.release();
          if (error) reject(error);
          else resolve(result as T);
        };
        try {
          connection.query(sql, parameters, answer);
        } catch (error) {
          answer(error as Error);
        }
      }),
    );
  }

  /** One promise, settled from the check phase: no async frame and no timers/promises wrapper per query. */
  private onSqlite<T>(sql: string, parameters: unknown[]): Promise<T> {
    return new Promise<T>((resolve, reject) =>
      setImmediate(() => {
        try {
          const statement = this.prepared(sql);
          resolve((statement.reader ? statement.all(...parameters) : statement.run(...parameters).lastInsertRowid) as T);
        } catch (error) {
          reject(error);
        }
      }),
    );
  }

  /** Statements belong to a connection: a DataSource initialized again gets them prepared afresh. */
  private prepared(sql: string): SqliteStatement {
    const connection = (this.dataSource.driver as unknown as { databaseConnection: SqliteConnection }).databaseConnection;
    if (connection !== this.connection) {
      this.statements.clear();
      this.connection = connection;
    }
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = connection.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}
