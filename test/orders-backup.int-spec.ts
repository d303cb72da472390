import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { runBackupCli } from '../src/database/backup/backup-cli';
import { createDataSourceOptions } from '../src/database/database-options';
import { RESTORE_RULES } from '../src/restore-rules';
import { createTestApp } from './support/test-app';
import { createTestDatabase, reachableStores, TestDatabase } from './support/test-database';

const quiet = { line: () => undefined, note: () => undefined };

/** A backup carries the orders, and a restore refuses a backup that breaks a rule of selling, restoring nothing. */
describe.each(reachableStores())('orders in a backup [%s]', (store) => {
  const folder = mkdtempSync(join(tmpdir(), 'orders-backup-'));
  const file = join(folder, 'store.backup');
  const databases: TestDatabase[] = [];
  let lines: string[];
  let placed: { id: number; petId: number };

  const orderRowsOf = async (url: string) => {
    const dataSource = await new DataSource(createDataSourceOptions(url)).initialize();
    try {
      return ((await dataSource.query('SELECT o.id, o.status, p.status AS petStatus FROM orders o JOIN pets p ON p.id = o.pet_id ORDER BY o.id')) as Array<Record<string, unknown>>).map(
        ({ id, status, petStatus }) => [Number(id), status, petStatus],
      );
    } finally {
      await dataSource.destroy();
    }
  };

  const restoreInto = async (path: string): Promise<{ url: string; refusal?: string }> => {
    const target = await createTestDatabase(store);
    databases.push(target);
    try {
      await runBackupCli('restore', [path], () => target.url, quiet, RESTORE_RULES);
      return { url: target.url };
    } catch (error) {
      return { url: target.url, refusal: (error as Error).message };
    }
  };

  /** The backup with rows edited, and sealed anew as whoever edits a backup by hand can, so only the rules of selling refuse it. */
  const variant = (name: string, edit: (row: Record<string, unknown>, table: string) => void): string => {
    const edited = lines.slice(0, -1).map((line) => {
      const value = JSON.parse(line) as { table?: string; row?: Record<string, unknown> };
      if (value.table === undefined || value.row === undefined) return line;
      edit(value.row, value.table);
      return JSON.stringify(value);
    });
    const content = edited.map((line) => `${line}\n`).join('');
    const path = join(folder, name);
    writeFileSync(path, `${content}{"sha256":"${createHash('sha256').update(content).digest('hex')}"}\n`);
    return path;
  };

  beforeAll(async () => {
    const source = await createTestDatabase(store);
    databases.push(source);
    const app = await createTestApp({ database: source });
    try {
      const petOf = async () => (await app.client.post<{ id: number }>('/v1/pets', { name: 'Rex', categoryId: 1 })).body.id;
      placed = (await app.client.post<{ id: number; petId: number }>('/v1/store/orders', { petId: await petOf() })).body;
      const delivered = (await app.client.post<{ id: number }>('/v1/store/orders', { petId: await petOf() })).body;
      await app.client.post(`/v1/store/orders/${delivered.id}/deliver`);
      const cancelled = (await app.client.post<{ id: number }>('/v1/store/orders', { petId: await petOf() })).body;
      await app.client.post(`/v1/store/orders/${cancelled.id}/cancel`);
    } finally {
      await app.close();
    }
    await runBackupCli('backup', [file], () => source.url, quiet, RESTORE_RULES);
    lines = readFileSync(file, 'utf8').trimEnd().split('\n');
  }, 120_000);

  afterAll(async () => {
    for (const database of databases) await database.drop();
    rmSync(folder, { recursive: true, force: true });
  });

  it('restores every order with its pet as it was', async () => {
    const { url, refusal } = await restoreInto(file);
    expect(refusal).toBeUndefined();
    expect((await orderRowsOf(url)).map(([, status, petStatus]) => [status, petStatus])).toEqual([
      ['placed', 'pending'],
      ['delivered', 'sold'],
      ['cancelled', 'available'],
    ]);
  });

  it.each([
    [
      'a placed order whose pet is available',
      (row: Record<string, unknown>, table: string) => {
        if (table === 'pets' && row.status === 'pending') row.status = 'available';
      },
      () => `order ${placed.id} is placed but its pet ${placed.petId} is available; nothing was restored`,
    ],
    [
      'a delivered order whose pet is pending',
      (row: Record<string, unknown>, table: string) => {
        if (table === 'pets' && row.status === 'sold') row.status = 'pending';
      },
      () => expect.stringMatching(/^order \d+ is delivered but its pet \d+ is pending; nothing was restored$/),
    ],
    [
      'a count of placed orders that is not what the account holds',
      (row: Record<string, unknown>, table: string) => {
        if (table === 'accounts') row.placed_orders = 3;
      },
      () => expect.stringMatching(/^account \d+ counts another number of placed orders than it holds; nothing was restored$/),
    ],
  ])('refuses %s, restoring nothing', async (name, edit, refusal) => {
    const { url, refusal: said } = await restoreInto(variant(`${name.replace(/\W+/g, '-')}.backup`, edit));
    expect(said).toEqual(refusal());
    expect(await orderRowsOf(url)).toEqual([]);
  });
});
