import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Clock } from '../src/config/clock';
import { ApiKeysService } from '../src/auth/application/api-keys.service';
import { RefusedError, runKeysCli, UsageError } from '../src/auth/cli/keys-cli';
import { UsageRecorder } from '../src/usage/application/usage-recorder';
import { UsageReports } from '../src/usage/application/usage-reports';
import { UsageRetention } from '../src/usage/application/usage-retention';
import { ApiClient, ApiResponse, expectErrorBody } from './support/api-client';
import { describeOnStore } from './support/describe-store';
import { FakeClock } from './support/fake-clock';
import { createTestApp, TestApp } from './support/test-app';

const run = promisify(execFile);
const ROOT = join(__dirname, '..');

interface Counts {
  success: number;
  notModified: number;
  clientError: number;
  rateLimited: number;
  serverError: number;
}

interface UsageBody {
  account: { id: number };
  from: string;
  to: string;
  total: Counts;
  keys: Array<{ id: number; counts: Counts }>;
  days: Array<{ day: string; total: Counts; keys: Array<{ id: number; counts: Counts }> }>;
}

const counts = (partial: Partial<Counts>): Counts => ({ success: 0, notModified: 0, clientError: 0, rateLimited: 0, serverError: 0, ...partial });

/** The real keys command, as `npm run keys` runs it, against the spec's database. */
async function keysCommand(databaseUrl: string, ...args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, ['-r', 'ts-node/register/transpile-only', 'src/keys.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, APP_ENV: 'test', DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const DAY_ONE = '2030-01-01';
const DAY_TWO = '2030-01-02';

describeOnStore('usage per key and account', () => {
  let testApp: TestApp;
  const clock = new FakeClock(Date.UTC(2030, 0, 1, 12, 0, 0));
  let metrics: ApiClient;
  const upserts = async () => Number(/^usage_upserts_total (\d+)$/m.exec((await metrics.get('/metrics')).text)?.[1]);
  const newKey = async (account: string) => {
    const { id, accountId, secret } = await testApp.createKey({ plan: 'free', account });
    return { id, accountId, client: testApp.anonymous.withHeaders({ authorization: `Bearer ${secret}` }) };
  };
  let first: Awaited<ReturnType<typeof newKey>>;
  let second: Awaited<ReturnType<typeof newKey>>;
  let stranger: Awaited<ReturnType<typeof newKey>>;

  beforeAll(async () => {
    testApp = await createTestApp({
      env: { RATE_LIMIT_PLANS: '{"free":{"perMinute":8,"perDay":1000}}', USAGE_RETENTION_DAYS: '30' },
      overrides: [{ provide: Clock, useValue: clock }],
    });
    metrics = new ApiClient(testApp.app);
    first = await newKey('usage-shop');
    second = await newKey('usage-shop');
    stranger = await newKey('usage-stranger');
  });
  afterAll(() => testApp?.close());

  it('counts each answer by UTC day and outcome, and writes them in one batch a few seconds later, not one statement per request', async () => {
    const before = await upserts();
    const list = await first.client.get('/v1/pets');
    expect(list.status).toBe(200);
    expect((await first.client.get('/v1/pets', { 'if-none-match': String(list.headers.etag) })).status).toBe(304);
    for (let i = 0; i < 3; i++) expectErrorBody(await first.client.get('/v1/pets/987654321'), 404, 'not_found');
    for (let i = 0; i < 3; i++) expect((await second.client.get('/v1/pets')).status).toBe(200);
    // The account's minute (8; the 304 spent none of it) has room for one more: then two 429s.
    const last: ApiResponse[] = [];
    for (let i = 0; i < 3; i++) last.push(await first.client.get('/v1/pets'));
    expect(last[0].status).toBe(200);
    last.slice(1).forEach((response) => expectErrorBody(response, 429, 'rate_limited'));
    await stranger.client.get('/v1/pets');

    // Nothing is written with the requests themselves.
    expect(await upserts()).toBe(before);
    expect((await first.client.get<UsageBody>(`/v1/usage?from=${DAY_ONE}&to=${DAY_ONE}`)).body.total).toEqual(counts({}));

    // The batch goes by itself once its few seconds have passed; awaiting a flush waits for it.
    clock.advance(5_000);
    await testApp.app.get(UsageRecorder).flush();
    expect((await upserts()) - before).toBe(1);

    const report = await first.client.get<UsageBody>(`/v1/usage?from=${DAY_ONE}&to=${DAY_ONE}`);
    expect(report.status).toBe(200);
    // The report asked before the batch counts too: a 200 of the first key.
    const firstCounts = counts({ success: 3, notModified: 1, clientError: 3, rateLimited: 2 });
    const secondCounts = counts({ success: 3 });
    expect(report.body).toEqual({
      account: { id: first.accountId },
      from: DAY_ONE,
      to: DAY_ONE,
      total: counts({ success: 6, notModified: 1, clientError: 3, rateLimited: 2 }),
      keys: [
        { id: first.id, counts: firstCounts },
        { id: second.id, counts: secondCounts },
      ],
      days: [{ day: DAY_ONE, total: counts({ success: 6, notModified: 1, clientError: 3, rateLimited: 2 }), keys: [{ id: first.id, counts: firstCounts }, { id: second.id, counts: secondCounts }] }],
    });
  });

  it('keeps each UTC day apart, and many requests of many keys still cost a statement a batch', async () => {
    clock.set(Date.UTC(2030, 0, 2, 0, 0, 30));
    await testApp.app.get(UsageRecorder).flush();
    const before = await upserts();
    for (let i = 0; i < 6; i++) await second.client.get('/v1/pets');
    for (let i = 0; i < 6; i++) await stranger.client.get('/v1/pets');
    await testApp.app.get(UsageRecorder).flush();
    expect((await upserts()) - before).toBe(1);
    const report = await second.client.get<UsageBody>(`/v1/usage?from=${DAY_ONE}&to=${DAY_TWO}`);
    expect(report.body.days.map(({ day }) => day)).toEqual([DAY_ONE, DAY_TWO]);
    expect(report.body.days[1]).toEqual({ day: DAY_TWO, total: counts({ success: 6 }), keys: [{ id: second.id, counts: counts({ success: 6 }) }] });
  });

  it("shows the caller's own account only: another account's keys and figures never appear", async () => {
    await testApp.app.get(UsageRecorder).flush();
    const theirs = await stranger.client.get<UsageBody>(`/v1/usage?from=${DAY_ONE}&to=${DAY_TWO}`);
    expect(theirs.status).toBe(200);
    expect(theirs.body.account).toEqual({ id: stranger.accountId });
    expect(theirs.body.keys.map(({ id }) => id)).toEqual([stranger.id]);
    expect(theirs.body.total).toEqual(counts({ success: 7 }));
    const ours = await first.client.get<UsageBody>(`/v1/usage?from=${DAY_ONE}&to=${DAY_TWO}`);
    expect(ours.body.keys.map(({ id }) => id)).not.toContain(stranger.id);
  });

  it('spends no quota, needs no scope, and is refused without a key', async () => {
    const { secret } = await testApp.createKey({ plan: 'free', account: 'usage-scoped', scopes: ['pets:write'] });
    const scoped = testApp.anonymous.withHeaders({ authorization: `Bearer ${secret}` });
    const quota = async () => (await scoped.get<{ windows: Array<{ name: string; remaining: number }> }>('/v1/rate_limit')).body.windows;
    const before = await quota();
    for (let i = 0; i < 3; i++) expect((await scoped.get('/v1/usage')).status).toBe(200);
    expect(await quota()).toEqual(before);
    expect(before[0]).toMatchObject({ name: 'minute', remaining: 8 });
    expectErrorBody(await testApp.anonymous.get('/v1/usage'), 401, 'unauthorized');
  });

  it('covers the last 7 days by default, or the last `days`, and refuses a range it cannot serve', async () => {
    const byDefault = await first.client.get<UsageBody>('/v1/usage');
    expect(byDefault.body).toMatchObject({ from: '2029-12-27', to: DAY_TWO });
    expect((await first.client.get<UsageBody>('/v1/usage?days=1')).body).toMatchObject({ from: DAY_TWO, to: DAY_TWO });
    for (const query of ['days=0', 'days=367', 'days=abc', 'from=2030-02-30', 'from=20300101', `days=2&from=${DAY_ONE}`, `from=${DAY_TWO}&to=${DAY_ONE}`, 'from=2028-01-01&to=2030-01-01', 'page=2']) {
      expectErrorBody(await first.client.get(`/v1/usage?${query}`), 400, 'validation_failed');
    }
  });

  it('forgets days past USAGE_RETENTION_DAYS when the housekeeping prunes', async () => {
    const { secret, id } = await testApp.createKey({ plan: 'enterprise', perMinute: 1_000, perDay: 100_000, account: 'usage-old' });
    const old = testApp.anonymous.withHeaders({ authorization: `Bearer ${secret}` });
    const now = clock.now();
    for (const daysAgo of [31, 30, 29]) {
      clock.set(now - daysAgo * 86_400_000);
      await old.get('/v1/pets');
      await testApp.app.get(UsageRecorder).flush();
    }
    clock.set(now);
    const days = async () => (await old.get<UsageBody>('/v1/usage?from=2029-11-01&to=2030-01-02')).body.days.map(({ day }) => day);
    expect(await days()).toEqual(['2029-12-02', '2029-12-03', '2029-12-04']);
    expect(await testApp.app.get(UsageRetention).prune()).toBeGreaterThanOrEqual(2);
    // Today and the 29 days before it are kept.
    expect(await days()).toEqual(['2029-12-04']);
    expect(id).toBeGreaterThan(0);
  });

  // Three runs of the real command, each starting the service's modules.
  it('is shown by the keys command for a key and for an account with each of its keys, as a table or JSON', async () => {
    // The second key's own report on day two counts too.
    let lines: string[] = [];
    const output = { line: (text: string) => lines.push(text) };
    await testApp.app.get(UsageRecorder).flush();
    const url = testApp.database.url;
    const forKey = await keysCommand(url, 'usage', String(second.id), '--from', DAY_ONE, '--to', DAY_TWO);
    expect(forKey.code).toBe(0);
    expect(forKey.stdout.split('\n')).toEqual([
      `Usage of API key ${second.id} (account "usage-shop"), UTC days ${DAY_ONE} to ${DAY_TWO}:`,
      'DAY         2XX  304  4XX  429  5XX',
      `${DAY_ONE}  3    0    0    0    0`,
      `${DAY_TWO}  7    0    0    0    0`,
      'TOTAL       10   0    0    0    0',
      '',
    ]);

    const json = await keysCommand(url, 'usage', String(second.id), '--from', DAY_ONE, '--to', DAY_TWO, '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ key: { id: second.id }, account: { id: second.accountId, name: 'usage-shop' }, from: DAY_ONE, to: DAY_TWO, total: counts({ success: 10 }) });

    const forAccount = await keysCommand(url, 'usage', '--account', 'usage-shop', '--from', DAY_ONE, '--to', DAY_TWO, '--json');
    expect(forAccount.code).toBe(0);
    const report = JSON.parse(forAccount.stdout) as UsageBody & { account: { name: string } };
    expect(report.account).toEqual({ id: first.accountId, name: 'usage-shop' });
    expect(report.keys.map(({ id }) => id)).toEqual([first.id, second.id]);
    expect(report.days.map(({ day }) => day)).toEqual([DAY_ONE, DAY_TWO]);

    lines = [];
    await runKeysCli(['usage', '--account', 'usage-shop', '--from', DAY_ONE, '--to', DAY_TWO], testApp.app.get(ApiKeysService), output, { usage: testApp.app.get(UsageReports) });
    expect(lines.some((line) => new RegExp(`^${DAY_TWO} +${second.id} +7 +0 +0 +0 +0$`).test(line))).toBe(true);
    expect(lines.some((line) => new RegExp(`^TOTAL +${first.id} +\\d+ +1 +\\d+ +2 +0$`).test(line))).toBe(true);
    await expect(runKeysCli(['usage', '--account', 'no-such-account'], testApp.app.get(ApiKeysService), output, { usage: testApp.app.get(UsageReports) })).rejects.toThrow(
      new RefusedError('no account named "no-such-account"'),
    );
    await expect(runKeysCli(['usage', String(second.id), '--days', 'week'], testApp.app.get(ApiKeysService), output, { usage: testApp.app.get(UsageReports) })).rejects.toThrow(UsageError);
  }, 180_000);
});
