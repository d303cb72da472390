import type { DataSource, QueryRunner } from 'typeorm';
import type { DatabaseKind } from '../database-options';
import { BackupRefusedError, type BackupTable, type ColumnKind } from './backup-file';

/** A table of the store as a backup sees it: its columns by kind, and what its rows need before them. */
export interface StoreTable extends BackupTable {
  readonly primaryKey: readonly string[];
  readonly nullable: ReadonlySet<string>;
  /** The column the store numbers itself, if any. */
  readonly autoIncrement?: string;
  /** Each column that references another table (or its own). */
  readonly references: ReadonlyArray<{ readonly column: string; readonly table: string }>;
}

/** The column types of both stores' migrations, by the kind the file stores them as; any other type stops a backup until it is named here. */
const KINDS: Readonly<Record<string, ColumnKind>> = {
  integer: 'integer',
  int: 'integer',
  bigint: 'integer',
  smallint: 'integer',
  tinyint: 'integer',
  mediumint: 'integer',
  varchar: 'text',
  char: 'text',
  text: 'text',
  tinytext: 'text',
  mediumtext: 'text',
  longtext: 'text',
  datetime: 'datetime',
};

/** What differs between the stores in taking and restoring a backup. */
export interface StoreDialect {
  readonly kind: DatabaseKind;
  tableNames(runner: QueryRunner): Promise<string[]>;
  /** Opens a read transaction whose reads all see the store as it stood at one moment, while others go on writing. */
  beginSnapshot(runner: QueryRunner): Promise<void>;
  endSnapshot(runner: QueryRunner): Promise<void>;
  /** The column the store numbers itself in a table, if any: TypeORM's schema reader misses it on SQLite when the column's name is not quoted. */
  autoIncrementColumn(runner: QueryRunner, table: string, primaryKey: readonly string[]): Promise<string | undefined>;
  /** Each auto-increment counter as the id it gives next. */
  nextIds(runner: QueryRunner): Promise<Record<string, number>>;
  /** Moves a counter on so that `next` is the id it gives next; on MySQL the statement commits, so the restore runs it after its transaction. */
  setNextId(runner: QueryRunner, table: string, next: number): Promise<void>;
  readonly setsNextIdsInTransaction: boolean;
}

const SQLITE: StoreDialect = {
  kind: 'sqlite',
  tableNames: async (runner) =>
    ((await runner.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")) as Array<{ name: string }>).map(
      ({ name }) => name,
    ),
  // WAL mode gives a reader the snapshot of its transaction's first read; writers are never blocked by it.
  beginSnapshot: (runner) => runner.startTransaction(),
  endSnapshot: (runner) => runner.commitTransaction(),
  autoIncrementColumn: async (runner, table, primaryKey) => {
    const [{ n }] = (await runner.query("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = ? AND sql LIKE '%AUTOINCREMENT%'", [
      table,
    ])) as Array<{ n: number }>;
    // AUTOINCREMENT is only allowed on a table's one INTEGER PRIMARY KEY.
    return n > 0 && primaryKey.length === 1 ? primaryKey[0] : undefined;
  },
  nextIds: async (runner) => {
    const [known] = (await runner.query("SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'sqlite_sequence'")) as Array<{ n: number }>;
    if (known.n === 0) return {};
    const rows = (await runner.query('SELECT name, seq FROM sqlite_sequence')) as Array<{ name: string; seq: number }>;
    return Object.fromEntries(rows.map(({ name, seq }) => [name, Number(seq) + 1]));
  },
  setNextId: async (runner, table, next) => {
    await runner.query('DELETE FROM sqlite_sequence WHERE name = ?', [table]);
    await runner.query('INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)', [table, next - 1]);
  },
  setsNextIdsInTransaction: true,
};

const MYSQL: StoreDialect = {
  kind: 'mysql',
  tableNames: async (runner) =>
    ((await runner.query("SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE = 'BASE TABLE'")) as Array<{
      name: string;
    }>).map(({ name }) => name),
  beginSnapshot: async (runner) => {
    // A server or session set to READ COMMITTED would give each statement its own view.
    await runner.query('SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    await runner.query('START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY');
  },
  endSnapshot: async (runner) => {
    await runner.query('COMMIT');
  },
  autoIncrementColumn: async (runner, table) => {
    const rows = (await runner.query(
      "SELECT COLUMN_NAME AS name FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND EXTRA LIKE '%auto_increment%'",
      [table],
    )) as Array<{ name: string }>;
    return rows[0]?.name;
  },
  nextIds: async (runner) => {
    const rows = (await runner.query(
      'SELECT TABLE_NAME AS name, AUTO_INCREMENT AS next FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND AUTO_INCREMENT IS NOT NULL',
    )) as Array<{ name: string; next: number | string }>;
    return Object.fromEntries(rows.map(({ name, next }) => [name, Number(next)]));
  },
  setNextId: async (runner, table, next) => {
    await runner.query(`ALTER TABLE ${runner.dataSource.driver.escape(table)} AUTO_INCREMENT = ${Math.trunc(next)}`);
  },
  setsNextIdsInTransaction: false,
};

export function dialectOf(dataSource: DataSource): StoreDialect {
  return dataSource.options.type === 'better-sqlite3' ? SQLITE : MYSQL;
}

/** The tables TypeORM keeps for itself: the schema a restore starts from is made by running the migrations, never copied. */
function ownTables(dataSource: DataSource): string[] {
  return [dataSource.options.migrationsTableName ?? 'migrations', dataSource.metadataTableName];
}

/** The last of the migrations this release brings, by the timestamp that ends each name, as TypeORM orders them. */
export function latestMigrationOf(dataSource: DataSource): string | undefined {
  const names = dataSource.migrations.map((migration) => migration.name || migration.constructor.name);
  return names.sort((a, b) => Number(a.slice(-13)) - Number(b.slice(-13))).at(-1);
}

/** The name of the last migration the store has run, or undefined when it has run none. */
export async function lastMigration(runner: QueryRunner, dialect: StoreDialect): Promise<string | undefined> {
  const { dataSource } = runner;
  const table = ownTables(dataSource)[0];
  if (!(await dialect.tableNames(runner)).includes(table)) return undefined;
  const escape = (name: string) => dataSource.driver.escape(name);
  const rows = (await runner.query(
    `SELECT ${escape('name')} AS name FROM ${escape(table)} ORDER BY ${escape('timestamp')} DESC, ${escape('id')} DESC LIMIT 1`,
  )) as Array<{ name: string }>;
  return rows[0]?.name;
}

/**
 * The store's own tables, as its schema says now, each with its columns'
 * kinds, in an order that restores: a table after every table it references
 * through a column that cannot be null.
 */
export async function readStoreTables(runner: QueryRunner, dialect: StoreDialect): Promise<StoreTable[]> {
  const names = (await dialect.tableNames(runner)).filter((name) => !ownTables(runner.dataSource).includes(name));
  const tables: StoreTable[] = [];
  for (const table of await runner.getTables(names)) {
    const columns: Record<string, ColumnKind> = {};
    for (const column of table.columns) {
      // SQLite's schema reader keeps a declared length in the type (`char(64)`); MySQL's gives it apart.
      const kind = KINDS[column.type.toLowerCase().replace(/\s*\(.*$/, '')];
      if (!kind) throw new BackupRefusedError(`column ${table.name}.${column.name} is of type ${column.type}, which a backup does not know`);
      columns[column.name] = kind;
    }
    const primaryKey = table.columns.filter((column) => column.isPrimary).map((column) => column.name);
    if (primaryKey.length === 0) throw new BackupRefusedError(`table ${table.name} has no primary key, which a backup reads it by`);
    tables.push({
      name: table.name,
      columns,
      primaryKey,
      nullable: new Set(table.columns.filter((column) => column.isNullable).map((column) => column.name)),
      autoIncrement: await dialect.autoIncrementColumn(runner, table.name, primaryKey),
      references: table.foreignKeys.flatMap((key) => key.columnNames.map((column) => ({ column, table: key.referencedTableName }))),
    });
  }
  return inRestoreOrder(tables);
}

/** Tables that need none of those left first, then (to break a cycle) one that needs them only through columns that may be null. */
function inRestoreOrder(tables: StoreTable[]): StoreTable[] {
  const ordered: StoreTable[] = [];
  const left = [...tables].sort((a, b) => (a.name < b.name ? -1 : 1));
  while (left.length) {
    const placed = new Set(ordered.map((table) => table.name));
    const waitsFor = (table: StoreTable) => table.references.filter((reference) => reference.table !== table.name && !placed.has(reference.table));
    let next = left.findIndex((table) => waitsFor(table).length === 0);
    if (next < 0) next = left.findIndex((table) => waitsFor(table).every((reference) => table.nullable.has(reference.column)));
    if (next < 0) throw new BackupRefusedError(`tables ${left.map((table) => table.name).join(', ')} reference each other through columns that cannot be null`);
    ordered.push(...left.splice(next, 1));
  }
  return ordered;
}

/**
 * The columns a restore leaves null at first and sets once every table is in:
 * those referencing a table restored later, or their own table.
 */
export function deferredColumns(order: readonly string[], table: StoreTable): string[] {
  const before = order.slice(0, order.indexOf(table.name));
  return table.references
    .filter((reference) => !before.includes(reference.table))
    .map((reference) => reference.column);
}
