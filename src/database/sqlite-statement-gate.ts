import type { EntitySubscriberInterface } from 'typeorm';

interface Waiting<Unit> {
  /** Set when a unit of work waits to hold the connection; unset for a single statement. */
  readonly unit?: Unit;
  readonly enter: () => void;
}

/**
 * TypeORM's better-sqlite3 driver runs every statement, and every transaction,
 * on its one connection: a statement sent from anywhere while a unit of work's
 * transaction is open would run inside that transaction, and be undone with it.
 * Subscribed to every query, this gate holds such statements back until the
 * transaction ends, and lets a transaction begin only once no other statement
 * is under way. Waiters enter in arrival order, so neither side starves.
 * A statement free to run still waits for the event loop's check phase, so
 * the statements of one turn run together after its I/O (docs/adr/0023).
 */
export class SqliteStatementGate<Unit extends object> implements EntitySubscriberInterface {
  private holder: Unit | undefined;
  /** Statements of no holder between their beforeQuery and afterQuery. */
  private running = 0;
  private readonly waiting: Array<Waiting<Unit>> = [];

  /** `unitInProgress` names the unit of work whose code is running now, if any. */
  constructor(private readonly unitInProgress: () => Unit | undefined) {}

  /** TypeORM waits for the promise that comes back; a unit's own statements go on at once. */
  beforeQuery(): Promise<void> {
    if (this.isHoldersStatement()) return Promise.resolve();
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

  /** Resolves once `unit` holds the connection alone; its own statements then pass, every other one waits. */
  hold(unit: Unit): Promise<void> {
    if (this.holder === undefined && this.running === 0 && this.waiting.length === 0) {
      this.holder = unit;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push({ unit, enter: () => ((this.holder = unit), resolve()) }));
  }

  release(unit: Unit): void {
    if (this.holder !== unit) return;
    this.holder = undefined;
    this.admit();
  }

  private admit(): void {
    while (this.holder === undefined && this.waiting.length > 0) {
      if (this.waiting[0].unit !== undefined && this.running > 0) return;
      this.waiting.shift()!.enter();
    }
  }

  private isHoldersStatement(): boolean {
    return this.holder !== undefined && this.unitInProgress() === this.holder;
  }
}
