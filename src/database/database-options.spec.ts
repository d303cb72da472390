import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { createDataSourceOptions, type DatabaseKind } from './database-options';

/** A store's migration files as TypeORM's migration:create names them, `<timestamp>-<Name>.ts`, and the class each holds, `<Name><timestamp>`. */
function migrationFiles(kind: DatabaseKind): { file: string; name: string }[] {
  return readdirSync(join(__dirname, 'migrations', kind))
    .sort()
    .map((file) => ({ file, name: /^(\d{13})-(\w+)\.ts$/.exec(file)?.slice(1).reverse().join('') ?? `${file}: not <timestamp>-<Name>.ts` }));
}

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

  it("runs every file of the store's migrations folder, in order, with no list to add a migration to", () => {
    const loaded = dataSource.migrations.map((migration) => migration.name ?? migration.constructor.name);
    expect(loaded).toEqual(migrationFiles('sqlite').map(({ name }) => name));
    expect(loaded.length).toBeGreaterThanOrEqual(8);
  });
});

describe('the migrations of the two stores', () => {
  it('are the same steps under the same names, so neither store misses one', () => {
    expect(migrationFiles('mysql')).toEqual(migrationFiles('sqlite'));
  });
});
