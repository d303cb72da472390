import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startServiceProcess } from '../support/service-process';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');

/** Starts src/main.ts expecting it to refuse: returns its exit code and what it printed. */
async function refusedStart(env: Record<string, string>) {
  try {
    await run(process.execPath, ['-r', 'ts-node/register/transpile-only', 'src/main.ts'], {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', ...env },
      timeout: 30_000,
    });
    return { code: 0, stderr: '' };
  } catch (error) {
    const failed = error as { code: number; stderr: string };
    return { code: failed.code, stderr: failed.stderr };
  }
}

describe('what APP_ENV changes at start', () => {
  const databases: string[] = [];
  const freshSqlite = () => {
    const path = join(tmpdir(), `animal-store-env-${process.pid}-${databases.length}.db`);
    databases.push(path);
    return `sqlite:${path}`;
  };
  afterAll(() => databases.forEach((path) => ['', '-wal', '-shm'].forEach((ext) => rmSync(path + ext, { force: true }))));

  it('production refuses the embedded store with one line, unless explicitly allowed', async () => {
    const refused = await refusedStart({ APP_ENV: 'production', DATABASE_URL: freshSqlite() });
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split('\n')).toEqual([
      'Invalid configuration: DATABASE_URL: production needs MySQL; set ALLOW_SQLITE_IN_PRODUCTION=true to run on the embedded store',
    ]);
  });

  it.each([
    ['staging', 'STAGING_BASE_URL', { PUBLIC_BASE_URL: 'https://api.example.com/v1' }],
    ['production', 'PUBLIC_BASE_URL', { STAGING_BASE_URL: 'https://staging.example.com/v1', ALLOW_SQLITE_IN_PRODUCTION: 'true' }],
  ])('%s without its own base URL (%s) refuses to start with one line', async (appEnv, variable, others) => {
    const refused = await refusedStart({ APP_ENV: appEnv, DATABASE_URL: freshSqlite(), ...others });
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split('\n')).toEqual([
      `Invalid configuration: ${variable}: ${appEnv} writes its links with it; set the address clients use, e.g. https://api.example.com/v1`,
    ]);
  });

  it.each([
    ['true', 'true would let any client pick its address'],
    ['1', 'a hop count cannot tell a proxy from a client'],
    ['10.0.0.5,proxy.local', '"proxy.local" is not an IP address or CIDR range'],
  ])('TRUST_PROXY=%s refuses to start with one line that says what to set', async (value, why) => {
    const refused = await refusedStart({ TRUST_PROXY: value });
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split('\n')).toEqual([
      `Invalid configuration: TRUST_PROXY: ${why}; set the addresses or CIDR ranges of the proxies in front, e.g. 10.0.0.5,10.1.0.0/16`,
    ]);
  });

  it('a bad variable stops the start with one line naming it', async () => {
    const refused = await refusedStart({ PORT: 'eighty' });
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split('\n')).toEqual(['Invalid configuration: PORT: must be an integer from 0 to 65535']);
  });

  it('a plan table that names no plan stops the start with one line, though auth builds it inside Nest', async () => {
    const refused = await refusedStart({ DATABASE_URL: freshSqlite(), RATE_LIMIT_PLANS: '{"gold":{"perMinute":1,"perDay":1}}' });
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split('\n')).toEqual(['Invalid configuration: RATE_LIMIT_PLANS: unknown plan "gold"']);
  });

  const DEVELOPMENT_KEY = /Development API key[^\n]*\n.*\nask_test_[A-Za-z0-9_-]{43}[A-Za-z0-9]{6}\n/;

  it.each([
    ['development', 'prints a development key', DEVELOPMENT_KEY],
    ['staging', 'prints no key', null],
    ['production', 'prints no key', null],
  ])('%s on an empty store %s', async (appEnv, _outcome, printed) => {
    const service = await startServiceProcess({
      APP_ENV: appEnv,
      DATABASE_URL: freshSqlite(),
      ALLOW_SQLITE_IN_PRODUCTION: 'true',
      PUBLIC_BASE_URL: 'https://api.example.com/v1',
      STAGING_BASE_URL: 'https://staging.example.com/v1',
    });
    try {
      const output = service.output();
      if (printed) expect(output).toMatch(printed);
      else expect(output).not.toMatch(/ask_(test|live)_|Development API key/);
    } finally {
      expect(await service.stop()).toBe(0);
    }
  }, 60_000);
});
