import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { ApiKeysService } from '../src/auth/application/api-keys.service';
import { runBackupCli } from '../src/database/backup/backup-cli';
import { createDataSourceOptions } from '../src/database/database-options';
import { runMigrations } from '../src/database/run-migrations';
import { RESTORE_RULES } from '../src/restore-rules';
import { ApiClient } from './support/api-client';
import { createTestApp, TestApp } from './support/test-app';
import { createTestDatabase, TestDatabase, TestStore } from './support/test-database';

const ROOT = join(__dirname, '..');
const mysqlUp = process.env.MYSQL_AVAILABLE === '1';
const TABLE_KEYS: Readonly<Record<string, string>> = { accounts: 'id', api_key_usage: 'key_id, day', api_keys: 'id', idempotency_records: 'api_key_id, idempotency_key', orders: 'id', pets: 'id' };
const SEEDED_PETS = 20_000;

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** The real command, as `npm run backup -- FILE` and `npm run restore -- FILE` run it, against one store. */
function command(name: 'backup' | 'restore', file: string, databaseUrl: string): Promise<Outcome> {
  const env = { ...process.env, APP_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: databaseUrl };
  return new Promise((resolve) =>
    execFile(process.execPath, ['-r', 'ts-node/register/transpile-only', 'src/backup.ts', name, file], { cwd: ROOT, env }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

/** The same command in this process, for refusals that need no separate process to show. */
async function restoreInProcess(file: string, databaseUrl: string): Promise<string> {
  try {
    await runBackupCli('restore', [file], () => databaseUrl, { line: () => undefined, note: () => undefined }, RESTORE_RULES);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`restoring ${file} was not refused`);
}

async function openStore(url: string): Promise<DataSource> {
  return new DataSource(createDataSourceOptions(url)).initialize();
}

/** A datetime as one instant whichever store gave it: SQLite keeps `YYYY-MM-DD HH:MM:SS.mmm` text, MySQL gives a Date. */
function normalised(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string' && /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?$/.test(value)) return new Date(`${value.replace(' ', 'T')}Z`).toISOString();
  return value;
}

/** Every row of every table of the service, each column as one store-neutral value. */
async function everyRow(url: string): Promise<Record<string, Array<Record<string, unknown>>>> {
  const dataSource = await openStore(url);
  try {
    const tables: Record<string, Array<Record<string, unknown>>> = {};
    for (const [table, key] of Object.entries(TABLE_KEYS)) {
      const rows = (await dataSource.query(`SELECT * FROM ${table} ORDER BY ${key}`)) as Array<Record<string, unknown>>;
      tables[table] = rows.map((row) => Object.fromEntries(Object.entries(row).map(([column, value]) => [column, normalised(value)])));
    }
    return tables;
  } finally {
    await dataSource.destroy();
  }
}

/** Counts as the summary line gives them, written out here on their own; a refusal names only the tables that have rows. */
function summaryOf(rows: Record<string, unknown[]>, onlyWithRows = false): string {
  const labels = { accounts: 'accounts', api_key_usage: 'api key usage', api_keys: 'api keys', idempotency_records: 'idempotency records', orders: 'orders', pets: 'pets' };
  return Object.entries(labels)
    .filter(([table]) => !onlyWithRows || rows[table].length > 0)
    .map(([table, label]) => `${rows[table].length.toLocaleString('en-US')} ${label}`)
    .join(', ');
}

async function rowCounts(url: string): Promise<Record<string, number>> {
  const rows = await everyRow(url);
  return Object.fromEntries(Object.entries(rows).map(([table, list]) => [table, list.length]));
}

/**
 * Everything a restore could change in a store: every row of every table,
 * TypeORM's migrations and SQLite's counters included, and MySQL's counters.
 */
async function storeState(url: string): Promise<Record<string, unknown>> {
  const dataSource = await openStore(url);
  try {
    const sqlite = dataSource.options.type === 'better-sqlite3';
    const names = sqlite
      ? "SELECT name, NULL AS next FROM sqlite_master WHERE type = 'table' ORDER BY name"
      : 'SELECT TABLE_NAME AS name, AUTO_INCREMENT AS next FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME';
    const state: Record<string, unknown> = {};
    for (const { name, next } of (await dataSource.query(names)) as Array<{ name: string; next: unknown }>) {
      const rows = (await dataSource.query(`SELECT * FROM ${dataSource.driver.escape(name)} ORDER BY 1`)) as Array<Record<string, unknown>>;
      state[name] = { next: next === null ? null : Number(next), rows: rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, normalised(v)]))) };
    }
    return state;
  } finally {
    await dataSource.destroy();
  }
}

/** A backup's lines with a checksum line of their own, as whoever edits a backup by hand can write one. */
function sealed(lines: readonly string[]): string {
  const content = lines.map((line) => `${line}\n`).join('');
  return `${content}{"sha256":"${createHash('sha256').update(content).digest('hex')}"}\n`;
}

async function migratedEmptyStore(store: TestStore): Promise<TestDatabase> {
  const database = await createTestDatabase(store);
  const dataSource = await openStore(database.url);
  await runMigrations(dataSource);
  await dataSource.destroy();
  return database;
}

async function seedPets(dataSource: DataSource, count: number): Promise<void> {
  const statuses = ['available', 'pending', 'sold'];
  for (let first = 0; first < count; first += 500) {
    const rows = Array.from({ length: Math.min(500, count - first) }, (_, i) => [`Rex "${first + i}" l'été 🐕`, ((first + i) % 40) + 1, statuses[(first + i) % 3]]);
    await dataSource.query(`INSERT INTO pets (name, category_id, status) VALUES ${rows.map(() => '(?, ?, ?)').join(', ')}`, rows.flat());
  }
}

/** Keyed creates one after another until stopped, each with the moment it was acknowledged. */
function startWriting(client: ApiClient) {
  const acknowledged: Array<{ id: number; at: number }> = [];
  let stopped = false;
  const done = (async () => {
    for (let i = 0; !stopped; i++) {
      const response = await client.post<{ id: number }>('/v1/pets', { name: `load ${i}`, categoryId: 7 }, { 'idempotency-key': `load-${i}` });
      if (response.status !== 201) throw new Error(`create ${i} answered ${response.status}: ${response.text}`);
      acknowledged.push({ id: response.body.id, at: Date.now() });
    }
  })();
  return {
    acknowledged,
    stop: async () => {
      stopped = true;
      await done;
    },
  };
}

async function until(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The trailer: the line before the checksum line. */
const lastLine = (file: string) => JSON.parse(readFileSync(file, 'utf8').trimEnd().split('\n').at(-2)!) as { nextIds: Record<string, number> };

interface Keys {
  /** Read-only, expiring, in the named account "shop" with a second key. */
  shop: string;
  shopPartner: string;
  /** Enterprise, with limits of its own. */
  own: string;
  revoked: string;
  /** Rolled with an hour's grace: both secrets work. */
  rolledOld: string;
  rolledNew: string;
}

async function makeKeys(app: TestApp): Promise<Keys> {
  const service = app.app.get(ApiKeysService);
  const shop = await app.createKey({ plan: 'pro', name: 'made before the backup', account: 'shop', scopes: ['pets:read'], expiresInMs: 30 * 86_400_000 });
  const shopPartner = await app.createKey({ plan: 'pro', account: 'shop' });
  const own = await app.createKey({ plan: 'enterprise', perMinute: 600, perDay: 6_000 });
  const revoked = await app.createKey({ plan: 'free' });
  await service.revoke(revoked.id);
  const rolled = await app.createKey({ plan: 'business', name: 'rolled' });
  const { secret: rolledNew } = await service.roll(rolled.id, 3_600_000);
  return { shop: shop.secret, shopPartner: shopPartner.secret, own: own.secret, revoked: revoked.secret, rolledOld: rolled.secret, rolledNew };
}

/** What each key is let do on an app: the status of a list, and the limit it is counted against. */
async function whatKeysMayDo(app: TestApp, keys: Keys) {
  const seen: Record<string, { list: number; limit: unknown; create: number }> = {};
  for (const [name, secret] of Object.entries(keys)) {
    const client = app.anonymous.withHeaders({ authorization: `Bearer ${secret}` });
    const list = await client.get('/v1/pets?limit=1');
    const create = await client.post('/v1/pets', { name: `by ${name}`, categoryId: 1 });
    seen[name] = { list: list.status, limit: list.headers['x-ratelimit-limit'], create: create.status };
  }
  return seen;
}

for (const store of ['sqlite', 'mysql'] as const) {
  (store === 'mysql' && !mysqlUp ? describe.skip : describe)(`npm run backup and npm run restore [${store}]`, () => {
    const folder = mkdtempSync(join(tmpdir(), 'animal-store-backup-'));
    const file = join(folder, 'store.backup');
    let sourceDatabase: TestDatabase;
    let source: TestApp | undefined;
    let keys: Keys;
    const databases: TestDatabase[] = [];
    const newDatabase = async (kind: TestStore = store) => {
      const database = await createTestDatabase(kind);
      databases.push(database);
      return database;
    };

    beforeAll(async () => {
      sourceDatabase = await createTestDatabase(store);
      databases.push(sourceDatabase);
      source = await createTestApp({ database: sourceDatabase });
      keys = await makeKeys(source);
      await seedPets(source.app.get(DataSource), SEEDED_PETS);
    }, 120_000);

    afterAll(async () => {
      await source?.close();
      for (const database of databases) await database.drop();
      rmSync(folder, { recursive: true, force: true });
    });

    it('backs up while the service writes, and the restore is the store as it stood at one moment, keys and all', async () => {
      const writer = startWriting(source!.client);
      await until(() => writer.acknowledged.length >= 20, 'the first creates');
      const launched = Date.now();
      const backup = await command('backup', file, sourceDatabase.url);
      const ended = Date.now();
      await writer.stop();

      expect({ code: backup.code, stderr: backup.stderr }).toEqual({ code: 0, stderr: '' });
      // Only its owner may read a file that holds every key's hash; no hash is ever printed.
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(existsSync(`${file}.partial`)).toBe(false);
      const hashes = ((await everyRow(sourceDatabase.url)).api_keys as Array<{ key_hash: string }>).map((key) => key.key_hash);
      expect(hashes.some((hash) => backup.stdout.includes(hash))).toBe(false);

      const target = await newDatabase();
      const restore = await command('restore', file, target.url);
      const [restored, now] = [await everyRow(target.url), await everyRow(sourceDatabase.url)];
      // Both summaries count what the backup holds: one line each, on stdout.
      const counted = summaryOf(restored);
      expect(backup.stdout).toBe(`Backed up ${sourceDatabase.url} to ${file}: ${counted}\n`);
      expect(restore).toEqual({ code: 0, stdout: expect.stringMatching(/^Restored /), stderr: '' });
      expect(restore.stdout).toMatch(new RegExp(`^Restored ${file} \\(${store}, taken \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\) into `));
      expect(restore.stdout.endsWith(` into ${target.url}: ${counted}\n`)).toBe(true);
      const restoredPets = restored.pets as Array<{ id: number }>;
      const lastRestored = Math.max(...restoredPets.map((pet) => pet.id));
      // One moment: exactly the pets the source had up to the last one restored, each as it is there.
      expect(restoredPets).toEqual((now.pets as Array<{ id: number }>).filter((pet) => pet.id <= lastRestored));
      expect(restoredPets.length).toBeGreaterThanOrEqual(SEEDED_PETS + writer.acknowledged.filter(({ at }) => at < launched).length);
      // Online: creates were acknowledged after that moment and before the backup ended; none of them is in it.
      expect(writer.acknowledged.filter(({ id, at }) => id > lastRestored && at < ended).length).toBeGreaterThan(0);
      // A create and its Idempotency-Key record commit together, so the backup has both or neither.
      const recordedPets = (restored.idempotency_records as Array<{ status_code: number; response_body: string }>)
        .map((record) => (JSON.parse(record.response_body) as { id: number }).id)
        .sort((a, b) => a - b);
      const writtenPets = writer.acknowledged.map(({ id }) => id).filter((id) => id <= lastRestored);
      expect(recordedPets).toEqual(writtenPets);
      expect(recordedPets.length).toBeGreaterThanOrEqual(20);

      const sourceRights = await whatKeysMayDo(source!, keys);
      const again = await createTestApp({ database: target });
      try {
        expect(await whatKeysMayDo(again, keys)).toEqual(sourceRights);
        expect(sourceRights).toMatchObject({ shop: { list: 200, create: 403 }, own: { list: 200, limit: '600', create: 201 }, revoked: { list: 401 }, rolledOld: { list: 200 } });
        // A retry of a create the backup holds is answered from its restored record, not stored again.
        const retry = await again.anonymous.post<{ id: number }>('/v1/pets', { name: 'load 0', categoryId: 7 }, {
          authorization: `Bearer ${source!.apiKey}`,
          'idempotency-key': 'load-0',
        });
        expect({ status: retry.status, id: retry.body.id, replayed: retry.headers['idempotent-replayed'] }).toEqual({
          status: 201,
          id: writer.acknowledged[0].id,
          replayed: 'true',
        });
        // New ids follow the restored ones, from where the counter stood at the backup.
        const created = await again.client.post<{ id: number }>('/v1/pets', { name: 'after the restore', categoryId: 2 });
        expect(created.status).toBe(201);
        expect(created.body.id).toBeGreaterThan(lastRestored);
        expect(created.body.id).toBeGreaterThanOrEqual(lastLine(file).nextIds.pets);
      } finally {
        await again.close();
      }
    }, 180_000);

    it('restores every column of every table as the backup read it, into this store and (from SQLite) into MySQL', async () => {
      // With the service stopped, the store stays as the backup reads it, so the two can be compared whole.
      await source!.close();
      source = undefined;
      const backup = await command('backup', file, sourceDatabase.url);
      expect(backup.code).toBe(0);
      const expected = await everyRow(sourceDatabase.url);
      expect(backup.stdout).toBe(`Backed up ${sourceDatabase.url} to ${file}: ${summaryOf(expected)}\n`);
      // Its last line is the SHA-256 of every line before it.
      const written = readFileSync(file, 'utf8').trimEnd().split('\n');
      expect(`${written.join('\n')}\n`).toBe(sealed(written.slice(0, -1)));
      expect(written.at(-1)).toMatch(/^\{"sha256":"[0-9a-f]{64}"\}$/);

      const targets = [await newDatabase(), ...(store === 'sqlite' && mysqlUp ? [await newDatabase('mysql')] : [])];
      for (const target of targets) {
        const restore = await command('restore', file, target.url);
        expect(restore.code).toBe(0);
        expect(await everyRow(target.url)).toEqual(expected);
      }
      if (targets.length === 2) {
        // From the embedded store to production: the keys made on SQLite open the MySQL store.
        const onMysql = await createTestApp({ database: targets[1] });
        try {
          const shop = await onMysql.anonymous.get<unknown[]>('/v1/pets?limit=5', { authorization: `Bearer ${keys.shop}` });
          expect({ status: shop.status, pets: shop.body.length }).toEqual({ status: 200, pets: 5 });
          const created = await onMysql.client.post<{ id: number }>('/v1/pets', { name: 'first on MySQL', categoryId: 2 });
          expect(created.body.id).toBeGreaterThanOrEqual(lastLine(file).nextIds.pets);
        } finally {
          await onMysql.close();
        }
      }
    }, 180_000);

    describe('refuses, in one line, and leaves the store as it was', () => {
      let target: TestDatabase;
      let targetBefore: Record<string, unknown>;
      /** The backup's lines up to its trailer; its checksum line apart. */
      let lines: string[];
      let checksum: string;
      const variant = (name: string, text: string) => {
        const path = join(folder, name);
        writeFileSync(path, text);
        return path;
      };

      beforeAll(async () => {
        if (!existsSync(file)) expect(await command('backup', file, sourceDatabase.url)).toMatchObject({ code: 0 });
        lines = readFileSync(file, 'utf8').trimEnd().split('\n');
        checksum = lines.pop()!;
        // An empty store that has been used: its migrations ran and its pets counter moved, which a refusal must leave as they are.
        target = await migratedEmptyStore(store);
        databases.push(target);
        const used = await openStore(target.url);
        await used.query("INSERT INTO pets (name, category_id, status) VALUES ('gone', 1, 'sold')");
        await used.query('DELETE FROM pets');
        await used.destroy();
        targetBefore = await storeState(target.url);
      }, 60_000);

      afterEach(async () => {
        expect(await storeState(target.url)).toEqual(targetBefore);
      });

      it('a file that is not a backup, through the real command: exit code 1 and one line on stderr', async () => {
        const notes = variant('notes.txt', 'pets to order: 3 parrots\n');
        expect(await command('restore', notes, target.url)).toEqual({ code: 1, stdout: '', stderr: `restore: ${notes} is not an animal-store backup\n` });
        const missing = join(folder, 'no-such.backup');
        expect(await command('restore', missing, target.url)).toEqual({ code: 1, stdout: '', stderr: `restore: ${missing} does not exist\n` });
      }, 60_000);

      it('another kind of file: a store itself, JSON of another shape, a later format', async () => {
        const sqliteFile = store === 'sqlite' ? sourceDatabase.url.slice('sqlite:'.length) : variant('store.db', 'SQLite format 3\0\0\0');
        expect(await restoreInProcess(sqliteFile, target.url)).toBe(`${sqliteFile} is not an animal-store backup`);
        const json = variant('other.json', '{"pets":[{"id":1}]}\n');
        expect(await restoreInProcess(json, target.url)).toBe(`${json} is not an animal-store backup`);
        const later = variant('later.backup', sealed([lines[0].replace('"version":2', '"version":3'), ...lines.slice(1)]));
        expect(await restoreInProcess(later, target.url)).toBe(`${later} is a backup of format version 3; this release reads versions 1 and 2`);
      });

      it('a backup taken at another migration than this release makes', async () => {
        const { migration } = JSON.parse(lines[0]) as { migration: string };
        const older = variant('older.backup', sealed([lines[0].replace(`"migration":"${migration}"`, '"migration":"CreatePets1763683200000"'), ...lines.slice(1)]));
        expect(await restoreInProcess(older, target.url)).toBe(
          `${older} was taken at migration CreatePets1763683200000, and this release migrates a store to ${migration}: restore it with the release that took it`,
        );
      });

      it('a backup cut short, before or within its checksum line, or with a line changed since it was written', async () => {
        const whole = `${[...lines, checksum].join('\n')}\n`;
        const cut = variant('cut.backup', `${lines.join('\n')}\n`);
        expect(await restoreInProcess(cut, target.url)).toBe(`${cut} is cut short: it ends before its checksum line`);
        const halfway = variant('halfway.backup', whole.slice(0, Math.floor(whole.length / 2)));
        expect(await restoreInProcess(halfway, target.url)).toBe(`${halfway} is cut short: it ends before its checksum line`);
        const mid = variant('mid.backup', whole.slice(0, -20));
        expect(await restoreInProcess(mid, target.url)).toBe(`${mid} is cut short: it ends before its checksum line`);

        const at = lines.findIndex((line) => line.startsWith('{"table":"pets"'));
        const changed = [...lines];
        changed[at] = changed[at].replace(/"category_id":(\d+)/, (_, id: string) => `"category_id":${Number(id) + 1}`);
        const altered = variant('altered.backup', `${[...changed, checksum].join('\n')}\n`);
        const notMatching = `${altered} does not match its checksum: a line was changed, added or removed since it was written`;
        expect(await restoreInProcess(altered, target.url)).toBe(notMatching);
        const dropped = variant('dropped.backup', `${[...lines.slice(0, at), ...lines.slice(at + 1), checksum].join('\n')}\n`);
        expect(await restoreInProcess(dropped, target.url)).toBe(notMatching.replace(altered, dropped));
        // Through the real command too: one line, exit code 1.
        expect(await command('restore', altered, target.url)).toEqual({ code: 1, stdout: '', stderr: `restore: ${notMatching}\n` });
      }, 60_000);

      it('a damaged row under a checksum that matches it', async () => {
        const at = lines.findIndex((line) => line.startsWith('{"table":"pets"'));
        const damaged = [...lines];
        damaged[at] = damaged[at].replace(/"category_id":(\d+)/, '"category_id":"$1"');
        const path = variant('damaged.backup', sealed(damaged));
        expect(await restoreInProcess(path, target.url)).toBe(`${path} is damaged at line ${at + 1}: pets.category_id is not an integer`);
      });

      it('a backup the store refuses a row of part way: nothing of it stays', async () => {
        // The last table restored gets a row twice, so every table before it has been written when the store refuses.
        const at = lines.findIndex((line) => line.startsWith('{"table":"api_keys"'));
        const trailer = JSON.parse(lines.at(-1)!) as { rows: Record<string, number> };
        trailer.rows.api_keys++;
        const twice = variant('twice.backup', sealed([...lines.slice(0, at + 1), lines[at], ...lines.slice(at + 1, -1), JSON.stringify(trailer)]));
        const code = store === 'sqlite' ? 'SQLITE_CONSTRAINT_PRIMARYKEY' : 'ER_DUP_ENTRY';
        expect(await restoreInProcess(twice, target.url)).toBe(`the store refused a row of api_keys (${code}); nothing was restored`);
      });

      describe('a row the service would refuse, named by its line, its id and the rule', () => {
        /** The backup with the first row of `table` that `pick` accepts changed by `edit`, sealed again as a hand editor would. */
        const edited = (name: string, table: string, edit: (row: Record<string, unknown>) => void, pick: (row: Record<string, unknown>) => boolean = () => true) => {
          const at = lines.findIndex((line) => line.startsWith(`{"table":"${table}"`) && pick((JSON.parse(line) as { row: Record<string, unknown> }).row));
          expect(at).toBeGreaterThan(0);
          const { row } = JSON.parse(lines[at]) as { row: Record<string, unknown> };
          edit(row);
          const changed = [...lines];
          changed[at] = JSON.stringify({ table, row });
          return { path: variant(name, sealed(changed)), line: at + 1, row };
        };

        it.each<[string, string, (row: Record<string, unknown>) => void, string]>([
          ['a pet name of 5,000 characters', 'pets', (row) => (row.name = 'R'.repeat(5_000)), 'name must have 1 to 255 characters and not be only white space'],
          ['a pet name with a control character', 'pets', (row) => (row.name = 'Rex\u0007'), 'name must not contain control or bidirectional formatting characters (found U+0007)'],
          ['a pet name with a right-to-left override', 'pets', (row) => (row.name = '\u202eRex'), 'name must not contain control or bidirectional formatting characters (found U+202E)'],
          ['a negative category', 'pets', (row) => (row.category_id = -3), 'categoryId must be an integer from 1 to 9007199254740991'],
          ['a status outside the enumeration', 'pets', (row) => (row.status = 'lost'), 'status must be one of available, pending, sold'],
          ['a pet id of 0', 'pets', (row) => (row.id = 0), 'id must be an integer from 1 to 9007199254740991'],
        ])('%s', async (_case, table, edit, rule) => {
          const { path, line, row } = edited(`${table}-${_case.replace(/\W+/g, '-')}.backup`, table, edit);
          expect(await restoreInProcess(path, target.url)).toBe(`${path} breaks a rule at line ${line} (${table} id ${String(row.id)}): ${rule}`);
        });

        it('an enterprise account limited to -5 a minute, through the real command, into a store with rows: which keeps them all', async () => {
          const { path, line, row } = edited('minus-five.backup', 'accounts', (account) => (account.per_minute = -5), (account) => account.plan === 'enterprise');
          const refusal = `${path} breaks a rule at line ${line} (accounts id ${String(row.id)}): an enterprise plan needs perMinute and perDay (integers from 1 to 4294967295)`;
          expect(await command('restore', path, target.url)).toEqual({ code: 1, stdout: '', stderr: `restore: ${refusal}\n` });
          const before = await storeState(sourceDatabase.url);
          expect(await command('restore', path, sourceDatabase.url)).toEqual({ code: 1, stdout: '', stderr: `restore: ${refusal}\n` });
          expect(await storeState(sourceDatabase.url)).toEqual(before);
        }, 60_000);

        it.each<[string, string, (row: Record<string, unknown>) => void, string, (row: Record<string, unknown>) => boolean]>([
          ['limits beyond their column', 'accounts', (row) => (row.per_day = 2 ** 32), 'an enterprise plan needs perMinute and perDay (integers from 1 to 4294967295)', (row) => row.plan === 'enterprise'],
          ['limits on a plan without its own', 'accounts', (row) => (row.per_minute = 5), 'perMinute and perDay apply to the enterprise plan only', (row) => row.plan !== 'enterprise'],
          ['an unknown plan', 'accounts', (row) => (row.plan = 'platinum'), 'unknown plan "platinum"; use one of free, pro, business, enterprise', () => true],
          ["an account name kept for keys' own accounts", 'accounts', (row) => (row.name = 'key-1'), 'account names like "key-1" are kept for keys\' own accounts', (row) => row.name !== null],
          ['an account with both a name and an owner', 'accounts', (row) => (row.name = 'both'), 'an account has a name or an owner key, not both or neither', (row) => row.owner_key_id !== null],
          ['an unknown scope', 'api_keys', (row) => (row.scopes = 'pets:read admin:all'), 'unknown scope "admin:all"; a key may have pets:read, pets:write, orders:read, orders:write', () => true],
          ['a key hash that is not one', 'api_keys', (row) => (row.key_hash = 'Z'.repeat(64)), 'key_hash must be a SHA-256 hash in 64 lower-case hex digits', () => true],
          ['a key name of 101 characters', 'api_keys', (row) => (row.name = 'k'.repeat(101)), "a key's name has at most 100 characters", () => true],
        ])('%s', async (_case, table, edit, rule, pick) => {
          const { path, line, row } = edited(`${table}-${_case.replace(/\W+/g, '-')}.backup`, table, edit, pick);
          expect(await restoreInProcess(path, target.url)).toBe(`${path} breaks a rule at line ${line} (${table} id ${String(row.id)}): ${rule}`);
        });

        it.each<[string, (row: Record<string, unknown>) => void, string]>([
          ['a stored body that is not JSON', (row) => (row.response_body = '{"id":'), 'a stored answer has a JSON body'],
          ['a stored status that is no success', (row) => (row.status_code = 500), 'a stored answer has a success status, 200 to 299'],
          ['an idempotency key the header would refuse', (row) => (row.idempotency_key = 'é'), 'idempotency_key must be 1 to 255 printable ASCII characters, as the Idempotency-Key header'],
        ])('an idempotency record with %s', async (_case, edit, rule) => {
          const { path, line, row } = edited(`record-${_case.replace(/\W+/g, '-')}.backup`, 'idempotency_records', edit);
          expect(await restoreInProcess(path, target.url)).toBe(`${path} breaks a rule at line ${line} (idempotency_records api_key_id ${String(row.api_key_id)}): ${rule}`);
        });

        it('a next id that would hand out ids beyond 2^53 - 1, in the last line or from a row', async () => {
          const trailer = JSON.parse(lines.at(-1)!) as { nextIds: Record<string, number> };
          trailer.nextIds.pets = 2 ** 53 - 1;
          const counter = variant('counter.backup', sealed([...lines.slice(0, -1), JSON.stringify(trailer)]));
          expect(await restoreInProcess(counter, target.url)).toBe(
            `${counter} breaks a rule at line ${lines.length}: the next pets id would be 9007199254740991, which leaves too few ids below 2^53 - 1 (at most 9007194959773696)`,
          );
          const { path } = edited('last-id.backup', 'pets', (row) => (row.id = 2 ** 53 - 1), () => true);
          expect(await restoreInProcess(path, target.url)).toBe(
            `${path} breaks a rule at line ${lines.length}: the next pets id would be 9007199254740992, which leaves too few ids below 2^53 - 1 (at most 9007194959773696)`,
          );
        });
      });

      it('a backup written before the checksum still restores, with one line saying it carries none', async () => {
        const old = variant('old.backup', `${[lines[0].replace('"version":2', '"version":1'), ...lines.slice(1)].join('\n')}\n`);
        const restored = await newDatabase();
        const outcome = await command('restore', old, restored.url);
        expect(outcome).toEqual({
          code: 0,
          stdout: expect.stringMatching(new RegExp(`^Restored ${old} .* into ${restored.url}: `)),
          stderr: `${old} carries no checksum (format version 1): its rows were checked against every rule, its bytes could not be\n`,
        });
        expect(await rowCounts(restored.url)).toEqual((JSON.parse(lines.at(-1)!) as { rows: Record<string, number> }).rows);
        // Its rules still hold: a changed row is refused as such.
        const bad = [...lines];
        bad[0] = lines[0].replace('"version":2', '"version":1');
        const at = bad.findIndex((line) => line.startsWith('{"table":"pets"'));
        bad[at] = bad[at].replace(/"category_id":\d+/, '"category_id":-1');
        const path = variant('old-bad.backup', `${bad.join('\n')}\n`);
        expect(await restoreInProcess(path, target.url)).toMatch(new RegExp(`^${path} breaks a rule at line ${at + 1} \\(pets id \\d+\\): categoryId must be`));
      }, 60_000);

      it('a backup over a file that is not a backup, such as the store itself', async () => {
        const notes = variant('keep.txt', 'not a backup\n');
        const targets = [notes, ...(store === 'sqlite' ? [sourceDatabase.url.slice('sqlite:'.length)] : [])];
        for (const path of targets) {
          const before = readFileSync(path);
          const out = { line: () => undefined, note: () => undefined };
          await expect(runBackupCli('backup', [path], () => sourceDatabase.url, out, RESTORE_RULES)).rejects.toThrow(
            `${path} exists and is not a backup: name a new file`,
          );
          expect(readFileSync(path).equals(before)).toBe(true);
        }
      });

      it('a store that is not empty, through the real command', async () => {
        const before = await everyRow(sourceDatabase.url);
        const outcome = await command('restore', file, sourceDatabase.url);
        expect(outcome).toEqual({ code: 1, stdout: '', stderr: `restore: the store is not empty (${summaryOf(before, true)}): restore into an empty store\n` });
        expect(await everyRow(sourceDatabase.url)).toEqual(before);
      }, 60_000);
    });
  });
}
