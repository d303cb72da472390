import { TransactionalAdapterOptions } from '@nestjs-cls/transactional';
import { TypeOrmTransactionOptions } from '@nestjs-cls/transactional-adapter-typeorm';
import { Logger } from '@nestjs/common';
import { ClsServiceManager } from 'nestjs-cls';
import { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { describeFailure } from './driver-errors';
import { SqliteStatementGate } from './sqlite-statement-gate';

/** The key, in a transaction's nestjs-cls context, of its SQLite unit. */
const UNIT = Symbol('sqlite-unit');

/** One transaction on SQLite's one connection, begun by its first statement, so nothing is held while its work does anything else. */
class SqliteUnit {
  private began?: Promise<void>;
  /** Code the work left running (a timer, a promise not awaited) still sees the unit once it has ended. */
  ended = false;

  constructor(
    private readonly runner: QueryRunner,
    readonly gate: SqliteStatementGate,
    private readonly unitInProgress: () => SqliteUnit | undefined,
    private readonly logger: Logger,
  ) {}

  /** Holds the connection, then sends BEGIN, which the gate lets through as this unit's own statement. */
  begin(): Promise<void> {
    this.began ??= this.gate.hold({ unit: this, unitInProgress: this.unitInProgress }).then(async () => {
      try {
        await this.runner.startTransaction();
      } catch (error) {
        this.gate.release(this);
        throw error;
      }
    });
    return this.began;
  }

  /** As TypeORM's own transaction(): a commit that fails is rolled back and raises its error; a failed rollback leaves the work's error to be raised. */
  async end(commit: boolean): Promise<void> {
    // A transaction that failed to begin has raised its error to the work already.
    const begun = await this.began?.then(
      () => true,
      () => false,
    );
    if (!begun) {
      this.ended = true;
      return;
    }
    try {
      if (commit) await this.runner.commitTransaction();
      else await this.rollBack('the work failed');
    } catch (error) {
      await this.rollBack('its commit failed');
      throw error;
    } finally {
      this.ended = true;
      this.gate.release(this);
    }
  }

  /** A rollback that fails leaves the error that caused it to be raised; the server learns of it from the log. */
  private async rollBack(why: string): Promise<void> {
    try {
      await this.runner.rollbackTransaction();
    } catch (error) {
      this.logger.warn(`Rolling back a unit of work, after ${why}, failed too: ${describeFailure(error)}`);
    }
  }
}

/**
 * The transactional adapter for SQLite: TypeORM's better-sqlite3 driver runs
 * every statement on one connection, through one query runner, so a
 * transaction is that runner's, begun by the first statement of the work (the
 * gate sees it) and holding the gate until it ends (docs/adr/0055).
 */
export function sqliteTransactions(dataSource: DataSource, gate: SqliteStatementGate): TransactionalAdapterOptions<EntityManager, TypeOrmTransactionOptions> {
  const cls = ClsServiceManager.getClsService();
  const runner = dataSource.createQueryRunner();
  const manager = runner.manager;
  const logger = new Logger('Database');
  const unitInProgress = (): SqliteUnit | undefined => {
    const unit = cls.isActive() ? cls.get<SqliteUnit | undefined>(UNIT) : undefined;
    // A unit on another DataSource (another file) is no business of this one's gate.
    return unit?.gate === gate && !unit.ended ? unit : undefined;
  };
  gate.beginUnitsWith(unitInProgress);
  return {
    // SQLite runs every transaction serializable; there is no level to choose.
    wrapWithTransaction: async (_options, work, setTx) => {
      const unit = new SqliteUnit(runner, gate, unitInProgress, logger);
      // The library runs this in the transaction's own context, which code the work calls inherits.
      cls.set(UNIT, unit);
      setTx(manager);
      let result: unknown;
      try {
        result = await work();
      } catch (error) {
        await unit.end(false);
        throw error;
      }
      await unit.end(true);
      return result;
    },
    getFallbackInstance: () => dataSource.manager,
  };
}

/**
 * Runs `work` as code of no SQLite unit: its statements neither begin the unit
 * in progress nor join it. Only before the unit's first statement: once it
 * holds the connection, they would wait for it to end.
 */
export function outsideTheUnit<T>(work: () => Promise<T>): Promise<T> {
  const cls = ClsServiceManager.getClsService();
  if (!cls.isActive()) return work();
  return cls.run({ ifNested: 'inherit' }, () => {
    cls.set(UNIT, undefined);
    return work();
  });
}
