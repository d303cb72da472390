import { TransactionHost } from '@nestjs-cls/transactional';
import { DataSource } from 'typeorm';
import { Clock } from '../src/config/clock';
import { DatabaseReads } from '../src/database/database-reads';
import { Pet } from '../src/pets/domain/pet';
import { PetPageQuery, PetRepository, ReadFreshness } from '../src/pets/domain/pet.repository';
import { TypeOrmPetRepository } from '../src/pets/infrastructure/typeorm-pet.repository';
import { fingerprintOf } from '../src/idempotency/domain/idempotency-key';
import { StrictValidationPipe } from '../src/http/validation';
import { ApiClient, ApiResponse, expectErrorBody } from './support/api-client';
import { describeOnStore } from './support/describe-store';
import { settlesWithin } from './support/settles-within';
import { FakeClock } from './support/fake-clock';
import { createTestApp, TestApp, TestAppOptions } from './support/test-app';

interface PetBody {
  id: number;
  name: string;
  categoryId: number;
  status: string;
}

const DAY_MS = 86_400_000;

/** The app, and a client with a key of its own, whose id scopes the Idempotency-Keys it sends. */
async function appWithKey(options: TestAppOptions): Promise<{ testApp: TestApp; api: ApiClient; keyId: number }> {
  const testApp = await createTestApp(options);
  const key = await testApp.createKey({ plan: 'enterprise', name: 'idempotency', perMinute: 1_000_000, perDay: 1_000_000_000 });
  return { testApp, api: testApp.anonymous.withHeaders({ authorization: `Bearer ${key.secret}` }), keyId: key.id };
}

describeOnStore('Idempotency-Key on POST /v1/pets', () => {
  let testApp: TestApp;
  let api: ApiClient;
  let keyId: number;
  const clock = new FakeClock(Date.UTC(2030, 0, 1));
  let sequence = 0;
  const freshKey = () => `key-${++sequence}-${Date.now()}`;

  beforeAll(async () => {
    ({ testApp, api, keyId } = await appWithKey({ overrides: [{ provide: Clock, useValue: clock }] }));
  });
  afterAll(() => testApp?.close());

  const database = () => testApp.app.get(DataSource);
  const countRows = async (table: 'pets' | 'idempotency_records'): Promise<number> =>
    Number((await database().query(`SELECT COUNT(*) AS n FROM ${table}`))[0].n);
  const create = (body: unknown, key?: string, client = api): Promise<ApiResponse<PetBody>> =>
    client.post<PetBody>('/v1/pets', body, key === undefined ? {} : { 'idempotency-key': key });

  it('answers a retry with the first outcome, unchanged, marked as replayed, and stores nothing new', async () => {
    const key = freshKey();
    const first = await create({ name: 'Rex', categoryId: 3 }, key);
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const pets = await countRows('pets');
    // The same JSON value with its fields in another order is the same body.
    const retry = await create({ categoryId: 3, name: 'Rex' }, key);
    expect({ status: retry.status, body: retry.body, replayed: retry.headers['idempotent-replayed'] }).toEqual({
      status: 201,
      body: first.body,
      replayed: 'true',
    });
    expect(String(retry.headers['content-type'])).toMatch(/^application\/json/);
    expect(await countRows('pets')).toBe(pets);
  });

  it('stores one pet for identical requests sent at once', async () => {
    const key = freshKey();
    const pets = await countRows('pets');
    const responses = await Promise.all(Array.from({ length: 20 }, () => create({ name: 'Rex', categoryId: 3 }, key)));
    const created = responses.filter((response) => response.status === 201);
    expect(responses.filter((response) => response.status !== 201).map((response) => response.body)).toEqual(
      Array(20 - created.length).fill(expect.objectContaining({ code: 'idempotency_key_in_use' })),
    );
    expect(new Set(created.map((response) => response.body.id)).size).toBe(1);
    expect(await countRows('pets')).toBe(pets + 1);
  });

  it('creates as before without the header: every request stores a pet', async () => {
    const pets = await countRows('pets');
    const [a, b] = [await create({ name: 'Tom', categoryId: 4 }), await create({ name: 'Tom', categoryId: 4 })];
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.id).not.toBe(b.body.id);
    expect(a.headers['idempotent-replayed']).toBeUndefined();
    expect(await countRows('pets')).toBe(pets + 2);
  });

  it('keeps the keys of two callers apart', async () => {
    const other = testApp.client;
    const key = freshKey();
    const mine = await create({ name: 'Kit', categoryId: 1 }, key);
    const theirs = await create({ name: 'Kit', categoryId: 1 }, key, other);
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.body.id).not.toBe(mine.body.id);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
  });

  it('refuses the same key with a different body: 422 idempotency_key_reused', async () => {
    const key = freshKey();
    expect((await create({ name: 'Rex', categoryId: 3 }, key)).status).toBe(201);
    const pets = await countRows('pets');
    const reused = await create({ name: 'Rex', categoryId: 4 }, key);
    expectErrorBody(reused, 422, 'idempotency_key_reused');
    expect(reused.headers['x-ratelimit-limit']).toBeDefined();
    expect(await countRows('pets')).toBe(pets);
  });

  it('answers a known key before the body is validated: another body, invalid or not, is 422, and the stored answer stays', async () => {
    const key = freshKey();
    const first = await create({ name: 'Rex', categoryId: 3 }, key);
    expectErrorBody(await create({ name: 'Rex' }, key), 422, 'idempotency_key_reused');
    const retry = await create({ name: 'Rex', categoryId: 3 }, key);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toEqual(first.body);
  });

  it('validates a body once: a fresh key runs the pipe on it, a replay does not', async () => {
    const transform = jest.spyOn(testApp.app.get(StrictValidationPipe), 'transform');
    try {
      const key = freshKey();
      expect((await create({ name: 'Rex', categoryId: 3 }, key)).status).toBe(201);
      expect(transform.mock.calls.filter(([, metadata]) => metadata.type === 'body')).toHaveLength(1);
      transform.mockClear();
      expect((await create({ name: 'Rex', categoryId: 3 }, key)).headers['idempotent-replayed']).toBe('true');
      expect(transform).not.toHaveBeenCalled();
      // A fresh key's invalid body is refused by the pipe, once, and leaves the key unused.
      const other = freshKey();
      expectErrorBody(await create({ name: 'Rex' }, other), 400, 'validation_failed');
      expect(transform.mock.calls.filter(([, metadata]) => metadata.type === 'body')).toHaveLength(1);
      expect((await create({ name: 'Rex', categoryId: 3 }, other)).status).toBe(201);
    } finally {
      transform.mockRestore();
    }
  });

  it('honours a claim the previous release committed on its own: 409 until its lease passes, then the key is free', async () => {
    const key = freshKey();
    const body = { name: 'Rex', categoryId: 3 };
    await database().query('INSERT INTO idempotency_records (api_key_id, idempotency_key, fingerprint, claim_token, expires_at) VALUES (?, ?, ?, ?, ?)', [
      keyId,
      key,
      fingerprintOf(body),
      'a-request-of-the-previous-release',
      clock.now() + 10_000,
    ]);
    const pets = await countRows('pets');
    expectErrorBody(await create(body, key), 409, 'idempotency_key_in_use');
    expect(await countRows('pets')).toBe(pets);
    clock.advance(10_000);
    const created = await create(body, key);
    expect({ status: created.status, replayed: created.headers['idempotent-replayed'] }).toEqual({ status: 201, replayed: undefined });
    expect((await create(body, key)).body.id).toBe(created.body.id);
  });

  it.each([
    ['an empty key', ''],
    ['a key of 256 characters', 'k'.repeat(256)],
    ['a key with a control character', 'a\tb'],
  ])('refuses %s: 400 naming the header', async (_case, key) => {
    const response = await create({ name: 'Rex', categoryId: 3 }, key);
    expectErrorBody(response, 400, 'validation_failed');
    expect((response.body as unknown as { message: string }).message).toMatch(/^Idempotency-Key /);
  });

  it('accepts a key of 255 printable characters', async () => {
    const key = `${freshKey()} ~!`.padEnd(255, 'x');
    expect((await create({ name: 'Rex', categoryId: 3 }, key)).status).toBe(201);
  });

  it('stores no outcome for a request refused before the create (400, 401, 413, 415, 429)', async () => {
    const key = freshKey();
    const records = await countRows('idempotency_records');
    const limited = await testApp.createKey({ plan: 'enterprise', perMinute: 1, perDay: 100 });
    const limitedClient = testApp.anonymous.withHeaders({ authorization: `Bearer ${limited.secret}` });
    await limitedClient.get('/v1/pets');
    const refused: Array<[number, ApiResponse]> = [
      [400, await create({ name: 'Rex' }, key)],
      [401, await testApp.anonymous.post('/v1/pets', { name: 'Rex', categoryId: 3 }, { 'idempotency-key': key })],
      [413, await create({ name: 'Rex', categoryId: 3, pad: 'x'.repeat(17_000) }, key)],
      [415, await api.post('/v1/pets', 'name=Rex', { 'content-type': 'application/x-www-form-urlencoded', 'idempotency-key': key })],
      [429, await create({ name: 'Rex', categoryId: 3 }, key, limitedClient)],
    ];
    expect(refused.map(([, response]) => response.status)).toEqual(refused.map(([status]) => status));
    expect(await countRows('idempotency_records')).toBe(records);
    // Corrected, the same key goes through.
    expect((await create({ name: 'Rex', categoryId: 3 }, key)).status).toBe(201);
  });

  it('leaves the key unused when the create fails, so a retry may run it', async () => {
    const broken = await createTestApp();
    try {
      await broken.app.get(DataSource).query('DROP TABLE pets');
      const failed = await broken.client.post('/v1/pets', { name: 'Rex', categoryId: 3 }, { 'idempotency-key': 'fails' });
      expectErrorBody(failed, 500, 'internal_error');
      expect(Number((await broken.app.get(DataSource).query('SELECT COUNT(*) AS n FROM idempotency_records'))[0].n)).toBe(0);
    } finally {
      await broken.close();
    }
  });

  it('counts every request, replayed or not, against the rate limit', async () => {
    const key = freshKey();
    const remaining = async () => Number((await create({ name: 'Rex', categoryId: 3 }, key)).headers['x-ratelimit-remaining']);
    const [first, second, third] = [await remaining(), await remaining(), await remaining()];
    expect([first - second, second - third]).toEqual([1, 1]);
  });

  it('forgets an outcome after IDEMPOTENCY_TTL_SECONDS, and removes expired records as later creates run', async () => {
    const key = freshKey();
    const first = await create({ name: 'Rex', categoryId: 3 }, key);
    expect((await create({ name: 'Rex', categoryId: 3 }, key)).headers['idempotent-replayed']).toBe('true');
    clock.advance(DAY_MS - 1_000);
    expect((await create({ name: 'Rex', categoryId: 3 }, key)).body.id).toBe(first.body.id);
    clock.advance(2_000);
    // Expired: the key is free again, even for another body.
    const again = await create({ name: 'Max', categoryId: 5 }, key);
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(first.body.id);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    // Every record made more than a day ago is gone; only the one just made is left.
    clock.advance(DAY_MS + 60_000);
    await create({ name: 'Max', categoryId: 5 }, freshKey());
    expect(await countRows('idempotency_records')).toBe(1);
  });
});

/** The pet store with a create that can be held before it writes, as a slow store or a paused instance would hold it. */
class HeldPetRepository extends PetRepository {
  real!: PetRepository;
  private readonly holds = new Map<string, { reached: () => void; released: Promise<Error | undefined> }>();

  /** The next create of a pet with this name waits until `release()`, then writes, or throws the error given; `reached` resolves once it waits. */
  hold(name: string): { reached: Promise<void>; release: (error?: Error) => void } {
    let reached!: () => void;
    let release!: (error?: Error) => void;
    const whenReached = new Promise<void>((resolve) => (reached = resolve));
    this.holds.set(name, { reached, released: new Promise<Error | undefined>((resolve) => (release = resolve)) });
    return { reached: whenReached, release };
  }

  async create(pet: Omit<Pet, 'id'>): Promise<Pet> {
    const hold = this.holds.get(pet.name);
    if (hold) {
      this.holds.delete(pet.name);
      hold.reached();
      const error = await hold.released;
      if (error) throw error;
    }
    return this.real.create(pet);
  }

  findById(id: number, freshness: ReadFreshness) {
    return this.real.findById(id, freshness);
  }

  findPage(query: PetPageQuery, freshness: ReadFreshness) {
    return this.real.findPage(query, freshness);
  }

  replace(current: Pet, next: Pet) {
    return this.real.replace(current, next);
  }

  remove(current: Pet) {
    return this.real.remove(current);
  }

  countByStatus(freshness: ReadFreshness) {
    return this.real.countByStatus(freshness);
  }
}

describeOnStore('Idempotency-Key on a create still running when its retry comes', () => {
  let testApp: TestApp;
  let api: ApiClient;
  const pets = new HeldPetRepository();

  beforeAll(async () => {
    ({ testApp, api } = await appWithKey({ overrides: [{ provide: PetRepository, useValue: pets }] }));
    pets.real = new TypeOrmPetRepository(testApp.app.get(TransactionHost), testApp.app.get(DatabaseReads));
  });
  afterAll(() => testApp?.close());

  const petsNamed = async (name: string): Promise<number> =>
    Number((await testApp.app.get(DataSource).query('SELECT COUNT(*) AS n FROM pets WHERE name = ?', [name]))[0].n);
  const create = (body: unknown, key: string): Promise<ApiResponse<PetBody>> => api.post<PetBody>('/v1/pets', body, { 'idempotency-key': key });

  /**
   * Sends a create held before it writes, then its retry, which is refused 409 at once on both stores: the
   * claim is a row MariaDB lets the retry's claim wait on for no time, or a claim the SQLite process holds.
   */
  async function retryWhileHeld(body: { name: string; categoryId: number }, key: string) {
    const held = pets.hold(body.name);
    const first = create(body, key);
    await held.reached;
    const retry = create(body, key);
    expect(await settlesWithin(retry, 1_000)).toBe(true);
    expectErrorBody(await retry, 409, 'idempotency_key_in_use');
    return { first, release: held.release, retried: () => create(body, key) };
  }

  it(
    'answers the retry 409 idempotency_key_in_use at once, and the same pet, replayed, once the first request is done',
    async () => {
      const body = { name: 'Still running', categoryId: 3 };
      const { first, release, retried } = await retryWhileHeld(body, 'running-1');
      release();
      const created = await first;
      expect(created.status).toBe(201);
      const replayed = await retried();
      expect({ status: replayed.status, id: replayed.body.id, replayed: replayed.headers['idempotent-replayed'] }).toEqual({
        status: 201,
        id: created.body.id,
        replayed: 'true',
      });
      expect(await petsNamed(body.name)).toBe(1);
    },
  );

  it('lets the retry store the one pet when the first request fails', async () => {
    const body = { name: 'First one failed', categoryId: 3 };
    const { first, release, retried } = await retryWhileHeld(body, 'failing-1');
    release(new Error('the store went away'));
    expectErrorBody(await first, 500, 'internal_error');
    const stored = await retried();
    expect({ status: stored.status, replayed: stored.headers['idempotent-replayed'] }).toEqual({ status: 201, replayed: undefined });
    expect(await petsNamed(body.name)).toBe(1);
  });
});
