import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createDataSourceOptions } from '../../src/database/database-options';
import { migrationClasses } from '../support/migrated-data-source';
import { ormEntityClasses } from '../support/orm-entity-files';

const ROOT = join(__dirname, '..', '..');
const run = promisify(execFile);

/** The TypeORM CLI line of the README's MySQL section, without its DATABASE_URL, which the spec sets. */
function readmeTypeormCommand(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const command = /^DATABASE_URL=\S+ (npm run typeorm -- .+?)\s+#/m.exec(readme)?.[1];
  if (!command) throw new Error('The README shows no TypeORM CLI command');
  return command.split(/\s+/);
}

/** The sqlite migrations' names, in the order they run, as the service's DataSource finds them. */
async function migrationNames(): Promise<string[]> {
  return (await migrationClasses(createDataSourceOptions('sqlite::memory:'))).map((migration) => migration.name);
}

describe('the TypeORM CLI of the README', () => {
  const dir = mkdtempSync(join(tmpdir(), 'animal-store-typeorm-cli-'));
  // FORCE_COLOR=0: under CI=true the CLI's colour library would underline every line.
  const env = { ...process.env, DATABASE_URL: `sqlite:${join(dir, 'store.db')}`, LOG_LEVEL: 'silent', FORCE_COLOR: '0' };
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is migration:show, and lists every migration of a fresh store as pending, then as applied', async () => {
    const command = readmeTypeormCommand();
    expect(command).toEqual(['npm', 'run', 'typeorm', '--', 'migration:show']);
    const names = await migrationNames();
    expect(names.length).toBeGreaterThanOrEqual(8);
    const [npm, ...args] = command;

    const fresh = await run(npm, ['-s', ...args], { cwd: ROOT, env });
    expect(fresh.stdout.trim().split('\n')).toEqual(names.map((name) => `[ ] ${name}`));

    await run(process.execPath, ['-r', 'ts-node/register/transpile-only', 'src/database/migrate.ts'], { cwd: ROOT, env });
    const migrated = await run(npm, ['-s', ...args], { cwd: ROOT, env });
    expect(migrated.stdout.trim().split('\n')).toEqual(names.map((name, i) => `[X] ${i + 1} ${name}`));
  }, 60_000);

  it("finds every module's entities by their file name, as the service finds them through each module", async () => {
    const script = "require('./ormconfig').default.initialize().then(async (cli) => { console.log(JSON.stringify(cli.entityMetadatas.map((m) => m.name))); await cli.destroy(); })";
    const { stdout } = await run(process.execPath, ['-r', 'ts-node/register/transpile-only', '-e', script], { cwd: ROOT, env });
    const expected = ormEntityClasses().map(({ entity }) => entity.name);
    expect(expected.length).toBeGreaterThanOrEqual(4);
    expect((JSON.parse(stdout) as string[]).sort()).toEqual(expected.sort());
  }, 60_000);
});
