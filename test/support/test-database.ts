import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';

export type TestStore = 'sqlite' | 'mysql';

export interface TestDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

export function currentStore(): TestStore {
  return process.env.TEST_STORE === 'mysql' ? 'mysql' : 'sqlite';
}

/** The stores an integration spec of one adapter runs on: SQLite, and MySQL when the global setup reached it (it says so loudly when not). */
export function reachableStores(): TestStore[] {
  return process.env.MYSQL_AVAILABLE === '1' ? ['sqlite', 'mysql'] : ['sqlite'];
}

/** Server and credentials for the MySQL specs; each spec file gets its own database there. */
export const TEST_MYSQL_URL = process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';

/** A fresh, empty database for one spec file: a temp SQLite file, or a new MySQL database. */
export async function createTestDatabase(store: TestStore = currentStore()): Promise<TestDatabase> {
  const suffix = `${process.pid}_${randomBytes(4).toString('hex')}`;
  if (store === 'sqlite') {
    const path = join(tmpdir(), `animal_store_test_${suffix}.db`);
    return {
      url: `sqlite:${path}`,
      drop: async () => ['', '-wal', '-shm'].forEach((ext) => rmSync(path + ext, { force: true })),
    };
  }
  const name = `animal_store_test_${suffix}`;
  // A spec creates and drops whole databases: never anything whose name lacks "test".
  if (!name.includes('test')) throw new Error(`Refusing to use database ${name}`);
  const server = new URL(TEST_MYSQL_URL);
  const admin = await createConnection({ uri: TEST_MYSQL_URL });
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  await admin.end();
  server.pathname = `/${name}`;
  return {
    url: server.toString(),
    drop: async () => {
      const connection = await createConnection({ uri: TEST_MYSQL_URL });
      await connection.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await connection.end();
    },
  };
}
