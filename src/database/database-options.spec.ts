import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { createDataSourceOptions } from './database-options';

describe('createDataSourceOptions on the embedded store', () => {
  let dir: string;
  let dataSource: DataSource;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'animal-store-options-'));
    dataSource = await new DataSource(createDataSourceOptions(`sqlite:${join(dir, 'store.db')}`)).initialize();
  });

  afterAll(async () => {
    await dataSource.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A pragma's one value (busy_timeout answers it in a column named `timeout`). */
  const pragma = async (name: string): Promise<unknown> => {
    const [row] = (await dataSource.query(`PRAGMA ${name}`)) as Record<string, unknown>[];
    return Object.values(row)[0];
  };

  it('opens the file in WAL mode with NORMAL sync and waits for a lock rather than failing at once', async () => {
    expect(await pragma('journal_mode')).toBe('wal');
    expect(await pragma('synchronous')).toBe(1);
    expect(await pragma('busy_timeout')).toBe(5000);
  });
});
