import { Injectable, Logger } from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';
import { DataSource, EntityManager, QueryResult, QueryRunner } from 'typeorm';
import { connectBounded } from './database-bounds';
import { describeFailure, unavailableOr } from './driver-errors';
import { SqliteStatementGate, statementGateOf } from './sqlite-statement-gate';
import { UnitOfWork } from './unit-of-work';

interface Unit {
  /** The unit's transaction, begun by its first statement, so nothing is held while the work does anything else. */
  transaction?: Promise<QueryRunner>;
  /** Code the work left running (a timer, a promise not awaited) still sees the unit once it has ended. */
  ended?: boolean;
}

/**
 * The unit of work on TypeORM: one transaction per unit, on a connection of its
 * own (MySQL) or on SQLite's one connection held alone (see SqliteStatementGate).
 * The unit in progress lives in AsyncLocalStorage, so the repositories find its
 * EntityManager through `manager()` without it being passed down the call
 * (docs/adr/0014).
 */
@Injectable()
export class TypeOrmUnitOfWork extends UnitOfWork {
  private readonly units = new AsyncLocalStorage<Unit>();
  private readonly gate?: SqliteStatementGate;
  private readonly logger = new Logger('Database');

  constructor(private readonly dataSource: DataSource) {
    super();
    if (dataSource.options.type === 'better-sqlite3') {
      this.gate = statementGateOf(dataSource.subscribers);
      // Without the gate, a statement sent while a unit's transaction is open would silently join it.
      if (!this.gate) throw new Error('A SQLite DataSource needs SqliteStatementGate among its subscribers: build its options with createDataSourceOptions');
    }
  }

  run<T>(work: () => Promise<T>): Promise<T> {
    if (this.unitInProgress()) return work();
    const unit: Unit = {};
    return this.units.run(unit, async () => {
      let result: T;
      try {
        result = await work();
      } catch (error) {
        await this.end(unit, false);
        throw unavailableOr(error);
      }
      await this.end(unit, true).catch((error: unknown) => {
        throw unavailableOr(error);
      });
      return result;
    });
  }

  /** What repositories send their statements through: the transaction of the unit in progress (begun now if need be), else the DataSource's manager. */
  async manager(): Promise<EntityManager> {
    const unit = this.unitInProgress();
    if (!unit) return this.dataSource.manager;
    unit.transaction ??= this.begin(unit);
    return (await unit.transaction).manager;
  }

  /** Runs one statement through `manager()` and answers its rows. */
  async query<T>(sql: string, parameters: unknown[]): Promise<T[]> {
    return ((await this.structuredQuery(sql, parameters)).records ?? []) as T[];
  }

  /** Runs one statement through `manager()` and answers how many rows it changed, which `query()` alone does not say on every driver. */
  async execute(sql: string, parameters: unknown[]): Promise<number> {
    return (await this.structuredQuery(sql, parameters)).affected ?? 0;
  }

  /** Runs one INSERT through `manager()` and answers the id the store generated for its row. */
  async insert(sql: string, parameters: unknown[]): Promise<number> {
    const { raw } = await this.structuredQuery(sql, parameters);
    // mysql2 answers a result header; better-sqlite3 the row id itself.
    return Number(typeof raw === 'object' && raw !== null ? (raw as { insertId: number | string }).insertId : raw);
  }

  /** TypeORM's `transaction()` callback shape, for a repository that runs several statements as one. */
  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.run(async () => work(await this.manager()));
  }

  /**
   * Outside a unit, a database that is unavailable is answered as such here;
   * inside one, the error goes to the work as the driver raised it (an adapter
   * may read a lock conflict as its own answer), and `run` answers for the unit.
   */
  private async structuredQuery(sql: string, parameters: unknown[]): Promise<QueryResult> {
    const manager = await this.manager();
    const runner = manager.queryRunner ?? this.dataSource.createQueryRunner();
    try {
      if (runner !== manager.queryRunner) await connectBounded(runner);
      return await runner.query(sql, parameters, true);
    } catch (error) {
      throw runner === manager.queryRunner ? error : unavailableOr(error);
    } finally {
      if (runner !== manager.queryRunner) await runner.release();
    }
  }

  private unitInProgress(): Unit | undefined {
    const unit = this.units.getStore();
    return unit?.ended ? undefined : unit;
  }

  private async begin(unit: Unit): Promise<QueryRunner> {
    await this.gate?.hold({ unit, unitInProgress: () => this.unitInProgress() });
    const runner = this.dataSource.createQueryRunner();
    try {
      await runner.startTransaction();
      return runner;
    } catch (error) {
      await runner.release();
      this.gate?.release(unit);
      throw error;
    }
  }

  /** As TypeORM's own transaction(): a commit that fails is rolled back and raises its error; a failed rollback leaves the work's error to be raised. */
  private async end(unit: Unit, commit: boolean): Promise<void> {
    // A transaction that failed to begin has raised its error to the work already.
    const runner = await unit.transaction?.catch(() => undefined);
    if (!runner) {
      unit.ended = true;
      return;
    }
    try {
      if (commit) await runner.commitTransaction();
      else await this.rollBack(runner, 'the work failed');
    } catch (error) {
      await this.rollBack(runner, 'its commit failed');
      throw error;
    } finally {
      unit.ended = true;
      await runner.release();
      this.gate?.release(unit);
    }
  }

  /** A rollback that fails leaves the error that caused it to be raised; the server learns of it from the log. */
  private async rollBack(runner: QueryRunner, why: string): Promise<void> {
    try {
      await runner.rollbackTransaction();
    } catch (error) {
      this.logger.warn(`Rolling back a unit of work, after ${why}, failed too: ${describeFailure(error)}`);
    }
  }
}
