// The parts of better-sqlite3 12 the bench and its baseline use; the package ships no types.
declare module 'better-sqlite3' {
  class Database {
    constructor(filename: string);
    pragma(source: string): unknown;
    prepare(source: string): Database.Statement;
    /** `work` wrapped in BEGIN and COMMIT, rolled back when it throws. */
    transaction<A extends unknown[], R>(work: (...args: A) => R): (...args: A) => R;
    close(): void;
  }
  namespace Database {
    interface Statement {
      readonly reader: boolean;
      all(...params: unknown[]): unknown[];
      get(...params: unknown[]): unknown;
      run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint };
    }
  }
  export = Database;
}
