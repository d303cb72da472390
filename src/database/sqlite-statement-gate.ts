import { EventSubscriber, type EntitySubscriberInterface } from 'typeorm';

/** A unit of work holding the connection, and how to tell whether the code running now is its own. */
export interface GateHolder {
  readonly unit: object;
  /** The unit whose code is running now, if any. */
  readonly unitInProgress: () => object | undefined;
}

/** A unit of work whose transaction begins with its first statement; `begin` resolves once it holds the connection and has begun. */
export interface UnitToBegin {
  begin(): Promise<void>;
}

interface Waiting {
  /** Set when a unit of work waits to hold the connection; unset for a single statement. */
  readonly holder?: GateHolder;
  readonly enter: () => void;
}

/**
 * TypeORM's better-sqlite3 driver runs every statement, and every transaction,
 * on its one connection and its one query runner: a statement sent from
 * anywhere while a unit of work's transaction is open would run inside that
 * transaction, and be undone with it. Listed in the DataSource's `subscribers`
 * (createDataSourceOptions), TypeORM makes one gate per DataSource and asks it
 * before and after every query: it holds such statements back until the
 * transaction ends, and lets a unit of work take the connection (`hold`) only
 * once no other statement is under way. Waiters enter in arrival order,
 * so neither side starves. A statement free to run waits for the event loop's
 * check phase, so the statements of one turn run together after its I/O
 * (docs/adr/0043).
 */
@EventSubscriber()
export class SqliteStatementGate implements EntitySubscriberInterface {
  private holder: GateHolder | undefined;
  /** Statements of no holder between their beforeQuery and afterQuery. */
  private running = 0;
  private readonly waiting: Waiting[] = [];
  private unitToBegin: () => UnitToBegin | undefined = () => undefined;

  /** How to find the unit of work of the code running now: its first statement begins its transaction, and waits for that. */
  beginUnitsWith(unitInProgress: () => UnitToBegin | undefined): void {
    this.unitToBegin = unitInProgress;
  }

  /** TypeORM waits for the promise that comes back; the holder's own statements go on at once. */
  beforeQuery(): Promise<void> {
    if (this.isHoldersStatement()) return Promise.resolve();
    const unit = this.unitToBegin();
    if (unit) return unit.begin();
    if (this.holder === undefined && this.waiting.length === 0) {
      this.running++;
      return new Promise((resolve) => setImmediate(resolve));
    }
    return new Promise((resolve) => this.waiting.push({ enter: () => (this.running++, resolve()) }));
  }

  afterQuery(): void {
    if (this.isHoldersStatement()) return;
    this.running--;
    this.admit();
  }

  /** Resolves once `holder` holds the connection alone; its own statements then pass, every other one waits. */
  hold(holder: GateHolder): Promise<void> {
    if (this.holder === undefined && this.running === 0 && this.waiting.length === 0) {
      this.holder = holder;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push({ holder, enter: () => ((this.holder = holder), resolve()) }));
  }

  release(unit: object): void {
    if (this.holder?.unit !== unit) return;
    this.holder = undefined;
    this.admit();
  }

  private admit(): void {
    while (this.holder === undefined && this.waiting.length > 0) {
      if (this.waiting[0].holder !== undefined && this.running > 0) return;
      this.waiting.shift()!.enter();
    }
  }

  private isHoldersStatement(): boolean {
    return this.holder !== undefined && this.holder.unitInProgress() === this.holder.unit;
  }
}

/** The gate TypeORM made for this DataSource from its options; undefined when they list none. */
export function statementGateOf(subscribers: readonly unknown[]): SqliteStatementGate | undefined {
  return subscribers.find((subscriber): subscriber is SqliteStatementGate => subscriber instanceof SqliteStatementGate);
}
