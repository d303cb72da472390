import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(__dirname, '..', '..');
const run = promisify(execFile);

/**
 * `nest build` in a copy of the project, so that the dist/ the other deploy
 * specs run is never rebuilt under them.
 */
describe('building dist/ (npm run build, and the staleness check before npm run keys)', () => {
  const copy = mkdtempSync(join(tmpdir(), 'animal-store-build-'));

  beforeAll(() => {
    for (const file of ['package.json', 'nest-cli.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts/build-if-stale.js']) cpSync(join(ROOT, file), join(copy, file));
    cpSync(join(ROOT, 'src'), join(copy, 'src'), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
  });

  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  const build = () => run(process.execPath, [join(copy, 'node_modules', '@nestjs', 'cli', 'bin', 'nest.js'), 'build'], { cwd: copy });

  it('builds dist/ afresh: an output deleted since the last build is back, one whose source is gone is not', async () => {
    await build();
    expect(existsSync(join(copy, 'dist', 'main.js'))).toBe(true);
    rmSync(join(copy, 'dist', 'main.js'));
    // As a file moved to another folder leaves its old output behind.
    mkdirSync(join(copy, 'dist', 'gone'), { recursive: true });
    writeFileSync(join(copy, 'dist', 'gone', 'moved.controller.js'), 'module.exports = {};\n');

    await build();

    expect(existsSync(join(copy, 'dist', 'main.js'))).toBe(true);
    expect(existsSync(join(copy, 'dist', 'gone', 'moved.controller.js'))).toBe(false);
  }, 120_000);

  it('is run by the commands of the built code only when a source changed, a deleted one included', async () => {
    const buildIfStale = () => run(process.execPath, [join(copy, 'scripts', 'build-if-stale.js')], { cwd: copy });
    writeFileSync(join(copy, 'src', 'extra.ts'), 'export const extra = 1;\n');
    expect((await buildIfStale()).stderr).toMatch(/Building dist/);
    expect(existsSync(join(copy, 'dist', 'extra.js'))).toBe(true);
    expect((await buildIfStale()).stderr).not.toMatch(/Building dist/);

    // As a migration deleted from its folder, which would otherwise still run from dist/.
    rmSync(join(copy, 'src', 'extra.ts'));
    expect((await buildIfStale()).stderr).toMatch(/Building dist/);
    expect(existsSync(join(copy, 'dist', 'extra.js'))).toBe(false);
  }, 120_000);
});
