import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const readJson = <T>(file: string) => JSON.parse(readFileSync(join(ROOT, file), 'utf8')) as T;

interface LockedPackage {
  readonly version?: string;
  readonly hasInstallScript?: boolean;
}

const manifest = readJson<{ allowScripts?: Record<string, boolean> }>('package.json');
const lock = readJson<{ packages: Record<string, LockedPackage> }>('package-lock.json');

/** Each locked package that runs a script at install, by name (a package nested twice appears once). */
function withInstallScripts(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const [path, locked] of Object.entries(lock.packages)) {
    if (!locked.hasInstallScript) continue;
    const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    found.set(name, [...(found.get(name) ?? []), locked.version ?? '']);
  }
  return found;
}

/** An `allowScripts` key is a name, or a name pinned to one version: `better-sqlite3@13.2.0`. */
function parseKey(key: string): { name: string; version?: string } {
  const at = key.indexOf('@', 1);
  return at === -1 ? { name: key } : { name: key.slice(0, at), version: key.slice(at + 1) };
}

describe("dependencies' install scripts (npm ci --strict-allow-scripts)", () => {
  const policy = Object.entries(manifest.allowScripts ?? {}).map(([key, allowed]) => ({ ...parseKey(key), allowed }));

  it('are each reviewed in package.json, so no install runs a script nobody chose', () => {
    const unreviewed = [...withInstallScripts()].filter(([name, versions]) =>
      versions.some((version) => !policy.some((entry) => entry.name === name && (entry.version === undefined || entry.version === version))),
    );
    expect(unreviewed).toEqual([]);
  });

  it('name only packages that have one, so a dropped dependency leaves no stale entry', () => {
    const installing = withInstallScripts();
    expect(policy.filter((entry) => !installing.has(entry.name)).map((entry) => entry.name)).toEqual([]);
  });

  it('are all denied, and the embedded store opens without them', () => {
    expect(policy.filter((entry) => entry.allowed).map((entry) => entry.name)).toEqual([]);
    // better-sqlite3 ships a binary for each platform, so its denied build is not needed to open a database.
    const db = new Database(':memory:');
    expect(db.prepare('select sqlite_version() as version').get()).toEqual({ version: expect.stringMatching(/^3\./) });
    db.close();
  });

  it('make an unreviewed one fail CI instead of running with a warning', () => {
    expect(readFileSync(join(ROOT, '.ci', 'run'), 'utf8')).toMatch(/^npm ci .*--strict-allow-scripts/m);
  });
});
