import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ApiKeysService } from '../src/auth/application/api-keys.service';
import { KeyUsageRecorder } from '../src/auth/application/key-usage-recorder';
import { runKeysCli, UsageError } from '../src/auth/cli/keys-cli';
import { expectErrorBody } from './support/api-client';
import { describeOnStore } from './support/describe-store';
import { createTestApp, TestApp } from './support/test-app';

const run = promisify(execFile);
const ROOT = join(__dirname, '..');

/** The real command line, as `npm run keys` runs it, against the spec's database. */
async function keysCommand(databaseUrl: string, ...args: string[]) {
  return keysCommandWith({}, databaseUrl, ...args);
}

async function keysCommandWith(env: Record<string, string>, databaseUrl: string, ...args: string[]) {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', 'src/keys.ts', ...args],
      { cwd: ROOT, env: { ...process.env, APP_ENV: 'test', DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', ...env } },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describeOnStore('keys command line', () => {
  let testApp: TestApp;
  let lines: string[];
  const cli = (...argv: string[]) => {
    lines = [];
    return runKeysCli(argv, testApp.app.get(ApiKeysService), { line: (text) => lines.push(text) });
  };

  beforeAll(async () => {
    testApp = await createTestApp();
  });
  afterAll(() => testApp?.close());

  it('create prints the key alone on its last line, and that key works at once', async () => {
    const result = await keysCommand(testApp.database.url, 'create', '--plan', 'enterprise', '--per-minute', '50', '--per-day', '500', '--name', 'cli');
    expect(result.code).toBe(0);
    const output = result.stdout.trimEnd().split('\n');
    const key = output[output.length - 1];
    expect(key).toMatch(/^ask_test_[A-Za-z0-9_-]{43}[A-Za-z0-9]{6}$/);
    expect(output.slice(0, -1).join('\n')).toMatch(/plan enterprise, 50\/minute, 500\/day, name "cli"/);
    const response = await testApp.anonymous.get('/v1/pets', { authorization: `Bearer ${key}` });
    expect(response.status).toBe(200);
  });

  it('refuses an unknown plan as a malformed command line: one line on stderr and exit code 2', async () => {
    const result = await keysCommand(testApp.database.url, 'create', '--plan', 'gold');
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'keys: --plan must be one of free, pro, business, enterprise, not "gold" (see npm run keys -- --help)\n',
    });
  });

  it('says a malformed command line (exit 2) before it opens the store, so even with the store down; what the store refuses is exit 1', async () => {
    const down = 'mysql://root@127.0.0.1:1/animal_store';
    const malformed = await keysCommand(down, 'set-plan', '3', '--plan', 'gold');
    expect(malformed).toEqual({ code: 2, stdout: '', stderr: 'keys: --plan must be one of free, pro, business, enterprise, not "gold" (see npm run keys -- --help)\n' });
    const unknownId = await keysCommand(testApp.database.url, 'revoke', '999999');
    expect(unknownId).toEqual({ code: 1, stdout: '', stderr: 'keys: No API key with id 999999\n' });
  });

  it('refuses a plan table that names no plan with one line on stderr and exit code 1', async () => {
    const result = await keysCommandWith({ RATE_LIMIT_PLANS: '{"gold":{"perMinute":1,"perDay":1}}' }, testApp.database.url, 'list');
    expect(result).toEqual({ code: 1, stdout: '', stderr: 'keys: Invalid configuration: RATE_LIMIT_PLANS: unknown plan "gold"\n' });
  });

  it('words a plan and numbers that cannot go together in its own flags: one line on stderr and exit code 2', async () => {
    const result = await keysCommand(testApp.database.url, 'create', '--plan', 'enterprise', '--per-minute', '5');
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'keys: an enterprise key needs --per-minute N and --per-day N (integers from 1 to 4294967295) (see npm run keys -- --help)\n',
    });
  });

  it.each([
    [['create', '--plan', 'pro', '--per-minute', '5', '--per-day', '50'], '--per-minute and --per-day apply to enterprise keys only'],
    [['create', '--plan', 'enterprise', '--per-minute', '50', '--per-day', '5'], '--per-minute cannot be larger than --per-day'],
    [['create', '--plan', 'pro', '--name', 'x'.repeat(101)], '--name must have at most 100 characters'],
    [['create', '--plan', 'pro', '--account', ' '], '--account needs a name of 1 to 100 characters'],
    [['set-plan', '1', '--plan', 'enterprise'], 'an enterprise key needs --per-minute N and --per-day N (integers from 1 to 4294967295)'],
  ])('refuses %p in the words of its flags, as a usage error', async (argv, message) => {
    const attempt = cli(...argv);
    await expect(attempt).rejects.toThrow(UsageError);
    await expect(attempt).rejects.toThrow(new RegExp(`^${message.replace(/[()]/g, '\\$&')}$`));
  });

  it('refuses a malformed command line with one line and exit code 2', async () => {
    const result = await keysCommand(testApp.database.url, 'create', '--colour', 'red');
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^keys: .*--colour/);
  });

  it('create --expires-in sets when the key stops working, and says so', async () => {
    const result = await keysCommand(testApp.database.url, 'create', '--plan', 'free', '--expires-in', '90d');
    expect(result.code).toBe(0);
    const expires = /, expires (\S+)\.$/m.exec(result.stdout)?.[1];
    expect(Date.parse(expires!) - Date.now()).toBeGreaterThan(90 * 86_400_000 - 60_000);
    expect(Date.parse(expires!) - Date.now()).toBeLessThanOrEqual(90 * 86_400_000);
  });

  it('refuses a bad duration with one clear line on stderr and exit code 2', async () => {
    const result = await keysCommand(testApp.database.url, 'create', '--plan', 'free', '--expires-in', '3 weeks');
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'keys: --expires-in must be a duration such as 30s, 15m, 12h or 90d, not "3 weeks" (see npm run keys -- --help)\n',
    });
  });

  it('create --json and list --json print one JSON document each, on stdout alone', async () => {
    const created = await keysCommand(testApp.database.url, 'create', '--plan', 'pro', '--name', 'json', '--expires-in', '12h', '--json');
    expect(created.code).toBe(0);
    const { id, key, ...rest } = JSON.parse(created.stdout) as { id: number; key: string };
    expect(rest).toEqual({});
    expect(created.stdout).toBe(`${JSON.stringify({ id, key })}\n`);
    expect(key).toMatch(/^ask_test_[A-Za-z0-9_-]{43}[A-Za-z0-9]{6}$/);
    const listed = await keysCommand(testApp.database.url, 'list', '--json');
    expect(listed.code).toBe(0);
    const list = JSON.parse(listed.stdout) as Array<Record<string, unknown>>;
    expect(Array.isArray(list)).toBe(true);
    const isoDate = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(list.find((entry) => entry.id === id)).toEqual({
      id,
      name: 'json',
      account: `key-${id}`,
      plan: 'pro',
      perMinute: 300,
      perDay: 10000,
      scopes: ['*'],
      createdAt: isoDate,
      expiresAt: isoDate,
      revokedAt: null,
      lastUsedAt: null,
    });
    expect(listed.stdout).not.toContain(key.slice(9));
    // Used only after the list: a slow machine may take longer to start the command than the last-use batch takes to be written.
    expect((await testApp.anonymous.get('/v1/pets', { authorization: `Bearer ${key}` })).status).toBe(200);
  });

  it('create --scopes makes a key that may do only what it names; list, --json and roll show and keep its scopes', async () => {
    const created = await keysCommand(testApp.database.url, 'create', '--plan', 'pro', '--name', 'reader', '--scopes', 'pets:read');
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^Created API key (\d+): plan pro, 300\/minute, 10000\/day, name "reader", scopes pets:read\.$/m);
    const id = Number(/^Created API key (\d+)/m.exec(created.stdout)?.[1]);
    const both = await keysCommand(testApp.database.url, 'create', '--plan', 'pro', '--scopes', 'pets:write, pets:read,pets:write', '--json');
    const { id: full } = JSON.parse(both.stdout) as { id: number };

    const scopesOf = async () => {
      await cli('list', '--json');
      const byId = new Map((JSON.parse(lines[0]) as Array<{ id: number; scopes: string[] }>).map((entry) => [entry.id, entry.scopes]));
      return [byId.get(id), byId.get(full)];
    };
    await expect(scopesOf()).resolves.toEqual([['pets:read'], ['pets:read', 'pets:write']]);
    await cli('list');
    expect(lines.find((line) => line.startsWith(`${id} `))?.split(/\s{2,}/)[5]).toBe('pets:read');

    const rolled = await keysCommand(testApp.database.url, 'roll', String(id), '--grace', '0s');
    expect(rolled.stdout).toMatch(new RegExp(`^Rolled API key ${id} \\(plan pro, 300/minute, 10000/day, name "reader", scopes pets:read\\);`, 'm'));
    await expect(scopesOf()).resolves.toEqual([['pets:read'], ['pets:read', 'pets:write']]);
  });

  it('refuses an unknown scope with one line on stderr and exit code 2, creating no key', async () => {
    const before = (await testApp.app.get(ApiKeysService).list()).length;
    const result = await keysCommand(testApp.database.url, 'create', '--plan', 'pro', '--scopes', 'pets:read,pets:delete');
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'keys: --scopes takes pets:read, pets:write, orders:read, orders:write (comma-separated), not "pets:delete" (see npm run keys -- --help)\n',
    });
    await expect(cli('create', '--plan', 'pro', '--scopes', '')).rejects.toThrow(UsageError);
    expect(await testApp.app.get(ApiKeysService).list()).toHaveLength(before);
    // The orders' scopes are known before the orders module binds them.
    await cli('create', '--plan', 'pro', '--scopes', 'orders:read,orders:write', '--json');
    const { id } = JSON.parse(lines[0]) as { id: number };
    await expect(testApp.app.get(ApiKeysService).list()).resolves.toContainEqual(expect.objectContaining({ id, scopes: ['orders:read', 'orders:write'] }));
  });

  it('refuses a bad flag value with one line and exit 2, whatever the output format', async () => {
    const result = await keysCommand(testApp.database.url, 'create', '--plan', 'pro', '--per-minute', 'ten', '--json');
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toEqual(['keys: --per-minute must be an integer from 1 to 4294967295 (see npm run keys -- --help)']);
  });

  it('roll prints the new key alone on its last line, or with --json one object; both secrets work in the grace', async () => {
    const { id, secret: old } = await testApp.createKey({ plan: 'pro', name: 'to roll' });
    const rolled = await keysCommand(testApp.database.url, 'roll', String(id), '--grace', '1h');
    expect(rolled.code).toBe(0);
    const output = rolled.stdout.trimEnd().split('\n');
    expect(output[0]).toMatch(new RegExp(`^Rolled API key ${id} \\(plan pro, 300/minute, 10000/day, name "to roll"\\); the old key works until \\S+Z\\.$`));
    const key = output[output.length - 1];
    expect(key).toMatch(/^ask_test_[A-Za-z0-9_-]{43}[A-Za-z0-9]{6}$/);
    const json = await keysCommand(testApp.database.url, 'roll', String(id), '--grace', '0s', '--json');
    expect(json.code).toBe(0);
    const { id: jsonId, key: newest, ...rest } = JSON.parse(json.stdout) as { id: number; key: string };
    expect({ jsonId, rest }).toEqual({ jsonId: id, rest: {} });
    const fresh = await createTestApp({ database: testApp.database });
    try {
      expect((await fresh.anonymous.get('/v1/pets', { authorization: `Bearer ${newest}` })).status).toBe(200);
      for (const ended of [old, key]) expectErrorBody(await fresh.anonymous.get('/v1/pets', { authorization: `Bearer ${ended}` }), 401, 'unauthorized');
    } finally {
      await fresh.close();
    }
  });

  it('list prints a table of every key without any secret or hash', async () => {
    const { id, secret } = await testApp.createKey({ plan: 'business', name: 'listed' });
    await cli('list');
    expect(lines[0].split(/\s{2,}/)).toEqual(['ID', 'NAME', 'PLAN', 'PER MINUTE', 'PER DAY', 'SCOPES', 'CREATED', 'EXPIRES', 'REVOKED', 'LAST USED', 'ACCOUNT']);
    const row = lines.find((line) => line.startsWith(`${id} `));
    expect(row?.split(/\s{2,}/)).toEqual([
      String(id),
      'listed',
      'business',
      '1000',
      '100000',
      '*',
      expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      '-',
      '-',
      'never',
      `key-${id}`,
    ]);
    await testApp.anonymous.get('/v1/pets', { authorization: `Bearer ${secret}` });
    await testApp.app.get(KeyUsageRecorder).flush();
    await cli('list');
    const used = lines.find((line) => line.startsWith(`${id} `))?.split(/\s{2,}/);
    expect(used?.[9]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\dZ$/);
    expect(Date.now() - Date.parse(used![9])).toBeLessThan(120_000);
    const output = lines.join('\n');
    expect(output).not.toContain(secret.slice(9));
    expect(output).not.toMatch(/[0-9a-f]{64}/);
  });

  it('revoke stops the key and marks it in the list; an unknown id is an error', async () => {
    const { id, secret } = await testApp.createKey({ plan: 'free', name: 'gone' });
    await cli('revoke', String(id));
    expect(lines).toEqual([`Revoked API key ${id}; every instance refuses it within 5 seconds, as each one's cache lapses (not told through Redis).`]);
    await cli('list');
    expect(lines.find((line) => line.startsWith(`${id} `))?.split(/\s{2,}/)[8]).toMatch(/^\d{4}-\d\d-\d\dT\S+Z$/);
    const fresh = await createTestApp({ database: testApp.database });
    try {
      expectErrorBody(await fresh.anonymous.get('/v1/pets', { authorization: `Bearer ${secret}` }), 401, 'unauthorized');
    } finally {
      await fresh.close();
    }
    await expect(cli('revoke', '999999')).rejects.toThrow('No API key with id 999999');
  });

  it('set-plan changes the plan and its limits', async () => {
    const { id } = await testApp.createKey({ plan: 'free' });
    await cli('set-plan', String(id), '--plan', 'enterprise', '--per-minute', '3', '--per-day', '30');
    expect(lines).toEqual([`API key ${id} is now plan enterprise, 3/minute, 30/day; the change applies within 5 seconds, as each one's cache lapses (not told through Redis).`]);
  });

  it('create --account makes the account, or joins it on its very plan; another plan is one line and exit 1', async () => {
    const first = await keysCommand(testApp.database.url, 'create', '--plan', 'enterprise', '--per-minute', '50', '--per-day', '500', '--account', 'acme');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^Created API key \d+: plan enterprise, 50\/minute, 500\/day, account "acme"\.$/m);
    const joined = await keysCommand(testApp.database.url, 'create', '--plan', 'enterprise', '--per-minute', '50', '--per-day', '500', '--account', 'acme', '--json');
    expect(joined.code).toBe(0);
    const { id } = JSON.parse(joined.stdout) as { id: number };

    const otherPlan = await keysCommand(testApp.database.url, 'create', '--plan', 'pro', '--account', 'acme');
    expect(otherPlan).toEqual({
      code: 1,
      stdout: '',
      stderr: 'keys: account "acme" is on plan enterprise (50/minute, 500/day), not plan pro; use set-plan to change it\n',
    });
    const otherNumbers = await keysCommand(testApp.database.url, 'create', '--plan', 'enterprise', '--per-minute', '60', '--per-day', '500', '--account', 'acme');
    expect(otherNumbers.code).toBe(1);
    expect(otherNumbers.stderr.trim().split('\n')).toEqual([
      'keys: account "acme" is on plan enterprise (50/minute, 500/day), not plan enterprise (60/minute, 500/day); use set-plan to change it',
    ]);
    const reserved = await keysCommand(testApp.database.url, 'create', '--plan', 'free', '--account', 'key-999999');
    expect(reserved.code).toBe(1);
    expect(reserved.stderr.trim().split('\n')).toEqual(['keys: account names like "key-999999" are kept for keys\' own accounts']);

    const listed = await keysCommand(testApp.database.url, 'list', '--json');
    const members = (JSON.parse(listed.stdout) as Array<Record<string, unknown>>).filter((entry) => entry.account === 'acme');
    expect(members).toHaveLength(2);
    expect(members.map((entry) => [entry.plan, entry.perMinute, entry.perDay])).toEqual([
      ['enterprise', 50, 500],
      ['enterprise', 50, 500],
    ]);
    const table = await keysCommand(testApp.database.url, 'list');
    expect(table.stdout.split('\n').find((line) => line.startsWith(`${id} `))?.split(/\s{2,}/).at(-1)).toBe('acme');
  });

  it('set-plan changes the plan of the whole account: every key of it, no key of another', async () => {
    const a = await testApp.createKey({ plan: 'free', account: 'shared-plan' });
    const b = await testApp.createKey({ plan: 'free', account: 'shared-plan' });
    const other = await testApp.createKey({ plan: 'free' });
    const result = await keysCommand(testApp.database.url, 'set-plan', String(a.id), '--plan', 'business');
    expect(result).toEqual({
      code: 0,
      stdout: `API key ${a.id} is now plan business, 1000/minute, 100000/day, account "shared-plan"; the change applies to every key of the account within 5 seconds, as each one's cache lapses (not told through Redis).\n`,
      stderr: '',
    });
    await cli('list', '--json');
    const byId = new Map((JSON.parse(lines[0]) as Array<{ id: number; plan: string; account: string }>).map((entry) => [entry.id, entry]));
    expect([a.id, b.id, other.id].map((id) => byId.get(id)?.plan)).toEqual(['business', 'business', 'free']);
    expect(byId.get(other.id)?.account).toBe(`key-${other.id}`);
  });

  it.each([
    [['create'], /create needs --plan/],
    [['create', '--plan', 'pro', 'extra'], /unexpected argument "extra"/],
    [['revoke'], /id is required/],
    [['revoke', 'abc'], /"abc" is not an API key id/],
    [['set-plan', '1'], /set-plan needs --plan/],
    [['create', '--plan', 'enterprise', '--per-minute', 'ten', '--per-day', '5'], /--per-minute must be an integer from 1 to 4294967295/],
    // Past what the stores' unsigned 32-bit column holds: one line, not the store's refusal.
    [['create', '--plan', 'enterprise', '--per-minute', '5', '--per-day', '100000000000'], /--per-day must be an integer from 1 to 4294967295/],
    [['create', '--plan', 'pro', '--expires-in', '10w'], /--expires-in must be a duration/],
    [['roll', '1', '--grace', 'tomorrow'], /--grace must be a duration/],
    [['roll'], /id is required/],
    [['rotate'], /unknown command "rotate"/],
    [[], /a command is required/],
  ])('treats %p as a usage error', async (argv, message) => {
    const attempt = cli(...argv);
    await expect(attempt).rejects.toThrow(UsageError);
    await expect(attempt).rejects.toThrow(message);
  });
});
