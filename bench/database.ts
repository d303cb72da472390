import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { BenchStore } from './args';
import { PET_STATUSES } from '../src/pets/domain/pet-status';

export const DEFAULT_MYSQL_URL = 'mysql://root@127.0.0.1:3306/animal_store_bench';

export interface BenchDatabase {
  readonly store: BenchStore;
  readonly url: string;
  /** What the report names: a file path or a database name, never a password. */
  readonly label: string;
}

/** Seeded pet number `id`: statuses rotate, so every status has pets all the way to the end. */
export function seededPet(id: number): [number, string, number, string] {
  return [id, `Pet ${id}`, 1 + (id % 97), PET_STATUSES[id % PET_STATUSES.length]];
}

/**
 * The bench truncates and fills its database, so it only touches one whose name
 * says so: it must contain "bench", and never "test" or "prod".
 */
export function checkBenchDatabaseName(name: string): void {
  if (!/^[A-Za-z0-9_]+$/.test(name) || !name.includes('bench') || /test|prod/i.test(name)) {
    throw new Error(`Refusing to use MySQL database "${name}": the bench needs a name containing "bench" (and neither "test" nor "prod")`);
  }
}

export function sqliteDatabase(directory: string, pets: number): BenchDatabase {
  mkdirSync(directory, { recursive: true });
  const path = join(directory, `bench-${pets}.sqlite`);
  return { store: 'sqlite', url: `sqlite:${path}`, label: path };
}

/** The MySQL database from `baseUrl` (with `suffix` appended to its name), created if missing. */
export async function mysqlDatabase(baseUrl: string, suffix = ''): Promise<BenchDatabase> {
  const url = new URL(baseUrl.replace(/^mariadb:/, 'mysql:'));
  const name = decodeURIComponent(url.pathname.slice(1)) + suffix;
  checkBenchDatabaseName(name);
  url.pathname = '/';
  const admin = await createConnection({ uri: url.toString() });
  try {
    await admin.query(`CREATE DATABASE IF NOT EXISTS \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  } finally {
    await admin.end();
  }
  url.pathname = `/${name}`;
  return { store: 'mysql', url: url.toString(), label: `${url.host}/${name}` };
}

/** A small SQL surface over either driver, enough for seeding and clean-up. */
interface SqlSession {
  query(sql: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  insertPets(rows: ReturnType<typeof seededPet>[]): Promise<void>;
  close(): Promise<void>;
}

async function openSession(database: BenchDatabase): Promise<SqlSession> {
  if (database.store === 'sqlite') {
    const db = new Database(database.url.slice('sqlite:'.length));
    db.pragma('journal_mode = WAL');
    const statements = new Map<number, Database.Statement>();
    return {
      query: async (sql, params = []) => {
        const statement = db.prepare(sql);
        if (statement.reader) return statement.all(...params) as Record<string, unknown>[];
        statement.run(...params);
        return [];
      },
      insertPets: async (rows) => {
        let insert = statements.get(rows.length);
        if (!insert) {
          insert = db.prepare(`INSERT INTO pets (id, name, category_id, status) VALUES ${rows.map(() => '(?, ?, ?, ?)').join(', ')}`);
          statements.set(rows.length, insert);
        }
        insert.run(...rows.flat());
      },
      close: async () => void db.close(),
    };
  }
  const connection = await createConnection({ uri: database.url, supportBigNumbers: true, bigNumberStrings: false });
  return {
    query: async (sql, params = []) => {
      const [rows] = await connection.query(sql, params);
      return Array.isArray(rows) ? (rows as Record<string, unknown>[]) : [];
    },
    insertPets: async (rows) => void (await connection.query('INSERT INTO pets (id, name, category_id, status) VALUES ?', [rows])),
    close: () => connection.end(),
  };
}

async function withSession<T>(database: BenchDatabase, work: (session: SqlSession) => Promise<T>): Promise<T> {
  const session = await openSession(database);
  try {
    return await work(session);
  } finally {
    await session.close();
  }
}

/**
 * Makes the `pets` table (already migrated) hold exactly pets 1..count, with
 * multi-row inserts. A table that already holds exactly that is kept as it is,
 * which saves minutes at millions of pets. Resolves to whether it seeded.
 */
export function seedPets(database: BenchDatabase, count: number, onProgress: (done: number) => void): Promise<boolean> {
  return withSession(database, async (session) => {
    const [{ total, last }] = await session.query('SELECT COUNT(*) AS total, COALESCE(MAX(id), 0) AS last FROM pets');
    if (Number(total) === count && Number(last) === count) return false;
    // Orders name pets by id, and a truncated table numbers its pets from 1 again.
    await session.query('DELETE FROM orders');
    await session.query(database.store === 'mysql' ? 'TRUNCATE TABLE pets' : 'DELETE FROM pets');
    // SQLite caps bound parameters per statement; MySQL takes far bigger packets.
    const batch = database.store === 'sqlite' ? 2_000 : 5_000;
    if (database.store === 'sqlite') await session.query('BEGIN');
    for (let first = 1; first <= count; first += batch) {
      const rows = Array.from({ length: Math.min(batch, count - first + 1) }, (_, i) => seededPet(first + i));
      await session.insertPets(rows);
      if ((first - 1) % (batch * 100) === 0 && first > 1) onProgress(first - 1);
    }
    if (database.store === 'sqlite') await session.query('COMMIT');
    return true;
  });
}

/** Deletes the pets that a create scenario added, and the orders of the order scenario, so every run starts from the same tables. */
export function removePetsAfter(database: BenchDatabase, count: number): Promise<void> {
  return withSession(database, async (session) => {
    await session.query('DELETE FROM orders');
    await session.query('UPDATE accounts SET placed_orders = 0');
    await session.query('DELETE FROM pets WHERE id > ?', [count]);
  });
}
