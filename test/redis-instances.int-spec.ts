import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ApiKeysService } from '../src/auth/application/api-keys.service';
import { Clock } from '../src/config/clock';
import { LOG_DESTINATION } from '../src/ops/logging';
import type { ApiClient } from './support/api-client';
import { FakeClock } from './support/fake-clock';
import { createTestDatabase, TestDatabase } from './support/test-database';
import { createTestApp, TestApp } from './support/test-app';
import { deleteKeysUnder, describeWithRedis, randomKeyPrefix, TEST_REDIS_URL } from './support/test-redis';

const run = promisify(execFile);
const ROOT = join(__dirname, '..');

/** The real keys command, as `npm run keys` runs it, with the instances' configuration. */
async function keysCommand(env: Record<string, string>, ...args: string[]) {
  const { stdout } = await run(process.execPath, ['-r', 'ts-node/register/transpile-only', 'src/keys.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, APP_ENV: 'test', LOG_LEVEL: 'silent', ...env },
  });
  return stdout.trim();
}

/** Asks until `holds` says yes, for at most `withinMs`; fails after that. A bound, not a measure of speed. */
async function within(withinMs: number, ask: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    if (await ask()) return;
    if (Date.now() > deadline) throw new Error(`Not seen within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describeWithRedis('a ban over instances that share Redis', () => {
  const prefix = randomKeyPrefix();
  let database: TestDatabase;
  const instances: Array<{ app: TestApp; clock: FakeClock; written: string[] }> = [];

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    const env = { DATABASE_URL: database.url, REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix, LOG_LEVEL: 'info', RATE_LIMIT_PLANS: '{"free":{"perMinute":2,"perDay":100}}', BAN_AFTER_REJECTIONS: '3' };
    for (let i = 0; i < 2; i++) {
      const clock = new FakeClock(Date.UTC(2030, 0, 1, 12));
      const written: string[] = [];
      const overrides = [
        { provide: Clock, useValue: clock },
        { provide: LOG_DESTINATION, useValue: { write: (chunk: string) => written.push(chunk) } },
      ];
      instances.push({ app: await createTestApp({ database, env, overrides }), clock, written });
    }
  }, 60_000);

  afterAll(async () => {
    for (const { app } of instances) await app.close();
    await database?.drop();
    await deleteKeysUnder(prefix);
  });

  // First in the file, so that no app made earlier in the process holds Nest's static loggers.
  it('is logged once, by the instance whose request imposed it, with its end', async () => {
    const { id, secret } = await instances[0].app.createKey({ plan: 'free' });
    const send = async (i: number) => {
      const response = await instances[i % 2].app.anonymous.withHeaders({ authorization: `Bearer ${secret}` }).get('/v1/pets');
      // Time passes between requests, on both instances' clocks.
      for (const { clock } of instances) clock.advance(1);
      return response;
    };
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await send(i)).status);
    expect(statuses).toEqual([200, 200, 429]);
    // Past the first second of the episode, on both clocks, so that refusals count toward a ban.
    for (const { clock } of instances) clock.advance(1_500);
    const codes = [];
    for (let i = 0; i < 10; i++) codes.push(((await send(i)).body as { code: string }).code);
    expect(codes).toContain('api_key_banned');
    const bans = instances.flatMap(({ written }) =>
      written.join('').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { msg: string; keyId?: number; banUntil?: string }),
    ).filter((line) => line.keyId === id && line.msg.includes('banned until'));
    expect(bans).toHaveLength(1);
    expect(Date.parse(bans[0].banUntil as string) - instances[0].clock.now()).toBeGreaterThan(900_000 - 20);
  }, 60_000);
});

describeWithRedis('key changes reach every instance at once', () => {
  const prefix = randomKeyPrefix();
  let database: TestDatabase;
  let env: Record<string, string>;
  const instances: TestApp[] = [];
  const clientOn = (instance: TestApp, secret: string): ApiClient => instance.anonymous.withHeaders({ authorization: `Bearer ${secret}` });

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    env = { DATABASE_URL: database.url, REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix };
    // Each instance's clock stands still, so a cached key never lapses by itself: only the told change can end it.
    for (let i = 0; i < 2; i++) instances.push(await createTestApp({ database, env, overrides: [{ provide: Clock, useValue: new FakeClock(Date.UTC(2030, 0, 1, 12)) }] }));
  }, 60_000);

  afterAll(async () => {
    for (const instance of instances) await instance.close();
    await database?.drop();
    await deleteKeysUnder(prefix);
  });

  it('says on /metrics that the limits are shared', async () => {
    expect((await instances[1].anonymous.get('/metrics')).text).toMatch(/^rate_limit_store_shared 1$/m);
  });

  it('refuses a revoked key on the other instance within 1 s of the keys command, its cache warm', async () => {
    const { id, secret } = await instances[0].createKey({ plan: 'pro', name: 'to revoke' });
    for (const instance of instances) expect((await clientOn(instance, secret).get('/v1/pets')).status).toBe(200);
    // Revoked in the store without a word to the instances: their caches keep serving it.
    await instances[0].app.get(ApiKeysService).revoke(id);
    for (const instance of instances) expect((await clientOn(instance, secret).get('/v1/pets')).status).toBe(200);
    const said = await keysCommand(env, 'revoke', String(id));
    expect(said).toBe(`Revoked API key ${id}; every instance refuses it within 1 second (told through Redis).`);
    await within(1_000, async () => (await clientOn(instances[1], secret).get('/v1/pets')).status === 401);
    await within(1_000, async () => (await clientOn(instances[0], secret).get('/v1/pets')).status === 401);
  }, 120_000);

  it("applies a new plan to every key of the account, and ends a rolled key's old secret, on every instance within 1 s", async () => {
    const { id, secret } = await instances[0].createKey({ plan: 'free', account: 'moving-up' });
    const sibling = await instances[0].createKey({ plan: 'free', account: 'moving-up' });
    const planOn = async (instance: TestApp, key: string) => (await clientOn(instance, key).get<{ plan: string }>('/v1/rate_limit')).body.plan;
    expect(await planOn(instances[1], sibling.secret)).toBe('free');
    expect((await clientOn(instances[1], secret).get('/v1/pets')).status).toBe(200);
    const said = await keysCommand(env, 'set-plan', String(id), '--plan', 'pro');
    expect(said).toMatch(/the change applies to every key of the account within 1 second \(told through Redis\)\.$/);
    await within(1_000, async () => (await planOn(instances[1], sibling.secret)) === 'pro');

    const rolled = await keysCommand(env, 'roll', String(id), '--grace', '0s');
    expect(rolled).toMatch(/every instance refuses the old key within 1 second \(told through Redis\)\./);
    await within(1_000, async () => (await clientOn(instances[1], secret).get('/v1/pets')).status === 401);
  }, 120_000);

  it('says the 5 s bound applies when Redis cannot be reached to tell the instances', async () => {
    const { id } = await instances[0].createKey({ plan: 'free' });
    const said = await keysCommand({ ...env, REDIS_URL: 'redis://127.0.0.1:1' }, 'revoke', String(id));
    expect(said).toBe(`Revoked API key ${id}; every instance refuses it within 5 seconds, as each one's cache lapses (not told through Redis).`);
  }, 60_000);
});
