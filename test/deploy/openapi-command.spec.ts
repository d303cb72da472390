import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(__dirname, '..', '..');
const run = promisify(execFile);

/** What `npm run openapi` runs once it has built dist/: `node <script>`. */
function openapiScript(): string {
  const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const script = /^nest build && node (\S+)$/.exec(scripts.openapi)?.[1];
  if (!script) throw new Error(`npm run openapi is not "nest build && node <script>": ${scripts.openapi}`);
  return script;
}

describe('npm run openapi', () => {
  const dir = mkdtempSync(join(tmpdir(), 'animal-store-openapi-command-'));

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the committed openapi.json, from the built entry point beside main.js', async () => {
    const script = openapiScript();
    expect(script).toMatch(/^dist\/[^/]+\.js$/);
    const target = join(dir, 'openapi.json');
    const { stdout } = await run(process.execPath, [script, target], { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'silent' } });
    expect(stdout.trim()).toBe(`Wrote ${target}`);
    expect(readFileSync(target, 'utf8')).toBe(readFileSync(join(ROOT, 'openapi.json'), 'utf8'));
  }, 60_000);
});
