import { createServer, request as forward, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { Clock } from '../../../src/config/clock';
import { FakeClock } from '../../../test/support/fake-clock';
import { createTestApp, TestApp } from '../../../test/support/test-app';
import { AnimalStoreClient, AnimalStoreError } from '../src';

/**
 * A proxy in front of the service that forwards every request; the first POST's
 * answer is read from the service and then dropped by closing the client's
 * connection, as a timeout or a broken network would.
 */
async function startLossyProxy(target: string): Promise<{ url: string; posts: string[]; close(): Promise<void> }> {
  const posts: string[] = [];
  const server: Server = createServer((incoming, outgoing) => {
    const isPost = incoming.method === 'POST';
    if (isPost) posts.push(String(incoming.headers['idempotency-key']));
    const cut = isPost && posts.length === 1;
    const upstream = forward(`${target}${incoming.url}`, { method: incoming.method, headers: incoming.headers }, (answer) => {
      if (cut) {
        answer.resume();
        answer.on('end', () => outgoing.socket?.destroy());
        return;
      }
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    });
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    posts,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('the TypeScript client against the running service', () => {
  let testApp: TestApp;
  let origin: string;
  const clock = new FakeClock(Date.UTC(2030, 0, 1, 12, 0, 0));
  const noWait = { sleep: async () => undefined, random: () => 0.5 };

  beforeAll(async () => {
    testApp = await createTestApp({ overrides: [{ provide: Clock, useValue: clock }] });
    await testApp.app.listen(0, '127.0.0.1');
    origin = `http://127.0.0.1:${(testApp.app.getHttpServer().address() as AddressInfo).port}`;
  });
  afterAll(() => testApp?.close());

  const countPets = async (): Promise<number> => Number((await testApp.app.get(DataSource).query('SELECT COUNT(*) AS n FROM pets'))[0].n);

  it('retries a create whose answer was lost after the pet was stored, and stores exactly one pet', async () => {
    const proxy = await startLossyProxy(origin);
    try {
      const client = new AnimalStoreClient({ baseUrl: `${proxy.url}/v1`, apiKey: testApp.apiKey, environment: noWait });
      const before = await countPets();
      const pet = await client.createPet({ name: 'Rex', categoryId: 3 });
      expect(pet).toEqual({ id: expect.any(Number), name: 'Rex', categoryId: 3, status: 'available' });
      expect(proxy.posts).toHaveLength(2);
      expect(proxy.posts[1]).toBe(proxy.posts[0]);
      expect(await countPets()).toBe(before + 1);
    } finally {
      await proxy.close();
    }
  });

  it('waits out a 429 for at least its Retry-After, then succeeds', async () => {
    const { secret } = await testApp.createKey({ plan: 'enterprise', name: 'limited', perMinute: 1, perDay: 1_000 });
    const waits: number[] = [];
    // The client's sleep moves the service's clock, so the wait is real to the service and instant to the spec.
    const sleep = async (ms: number) => {
      waits.push(ms);
      clock.advance(ms);
    };
    const client = new AnimalStoreClient({
      baseUrl: `${origin}/v1`,
      apiKey: secret,
      retry: { maxElapsedMs: 120_000 },
      environment: { sleep, now: () => clock.now(), random: () => 0.5 },
    });
    await client.listPets({ limit: 1 });
    const refused = await fetch(`${origin}/v1/pets?limit=1`, { headers: { authorization: `Bearer ${secret}` } });
    expect(refused.status).toBe(429);
    const retryAfterMs = Number(refused.headers.get('Retry-After')) * 1000;
    // Another page: asking for the same one again would be a 304, which a limited key still gets at once.
    await expect(client.listPets({ limit: 2 })).resolves.toMatchObject({ pets: expect.any(Array) });
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThanOrEqual(retryAfterMs);
  });

  it('iterates every pet exactly once across pages', async () => {
    const client = new AnimalStoreClient({ baseUrl: `${origin}/v1`, apiKey: testApp.apiKey });
    for (let i = 0; i < 23; i++) await client.createPet({ name: `Pet ${i}`, categoryId: 1 + (i % 3) });
    const seen: number[] = [];
    for await (const pet of client.allPets({ limit: 5 })) seen.push(pet.id);
    const stored: Array<{ id: number }> = await testApp.app.get(DataSource).query('SELECT id FROM pets ORDER BY id');
    expect(seen).toEqual(stored.map((row) => Number(row.id)));
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBeGreaterThan(20);
  });

  it('follows a filter through its pages', async () => {
    const client = new AnimalStoreClient({ baseUrl: `${origin}/v1`, apiKey: testApp.apiKey });
    const sold: number[] = [];
    for (let i = 0; i < 4; i++) sold.push((await client.createPet({ name: `Sold ${i}`, categoryId: 1, status: 'sold' })).id);
    const seen: number[] = [];
    for await (const pet of client.allPets({ limit: 3, status: 'sold' })) seen.push(pet.id);
    expect(seen).toEqual(sold);
  });

  it('asks again for pages and pets it has seen with their ETag, and gets its copies back on 304s that spend no quota', async () => {
    const answers: Array<{ url: string; status: number; remaining: number }> = [];
    const recording = async (input: Request): Promise<Response> => {
      const response = await fetch(input);
      answers.push({ url: new URL(input.url).pathname, status: response.status, remaining: Number(response.headers.get('X-RateLimit-Remaining')) });
      return response;
    };
    const { secret } = await testApp.createKey({ plan: 'free', name: 'conditional' });
    const client = new AnimalStoreClient({ baseUrl: `${origin}/v1`, apiKey: secret, fetch: recording as typeof fetch });
    const pet = await client.createPet({ name: 'Cached', categoryId: 2 });
    const page = await client.listPets({ limit: 3 });
    await expect(client.listPets({ limit: 3 })).resolves.toEqual(page);
    await expect(client.getPet(pet.id)).resolves.toEqual(pet);
    await expect(client.getPet(pet.id)).resolves.toEqual(pet);
    expect(answers.map(({ status }) => status)).toEqual([201, 200, 304, 200, 304]);
    expect(answers.map(({ remaining }) => remaining)).toEqual([59, 58, 58, 57, 57]);

    const status = await client.rateLimit();
    expect(status).toMatchObject({ plan: 'free', ban: null, windows: [{ name: 'minute', limit: 60, remaining: 57 }, { name: 'day', remaining: 997 }, { name: 'answers', limit: 600, remaining: 595 }] });
    await client.listPets({ limit: 4 });
    expect(answers[answers.length - 1]).toMatchObject({ status: 200, remaining: 56 });
  });

  it('throws a typed error with the Error body and headers, without retrying a 400', async () => {
    const client = new AnimalStoreClient({ baseUrl: `${origin}/v1`, apiKey: testApp.apiKey, environment: noWait });
    const failure = client.createPet({ name: 'Rex', categoryId: 0 });
    await expect(failure).rejects.toMatchObject({
      name: 'AnimalStoreError',
      status: 400,
      code: 'validation_failed',
      body: { code: 'validation_failed', status: 400, message: expect.stringContaining('categoryId') },
    });
    const error = (await failure.catch((caught: unknown) => caught)) as AnimalStoreError;
    expect(error.headers.get('X-RateLimit-Limit')).toBe('1000000');
  });
  it('places, lists, gets, delivers and cancels orders, and places one order per Idempotency-Key however often it is retried', async () => {
    const proxy = await startLossyProxy(origin);
    try {
      const lossy = new AnimalStoreClient({ baseUrl: `${proxy.url}/v1`, apiKey: testApp.apiKey, environment: noWait });
      const client = new AnimalStoreClient({ baseUrl: `${origin}/v1`, apiKey: testApp.apiKey, environment: noWait });
      const [rex, tom] = [await client.createPet({ name: 'Rex', categoryId: 3 }), await client.createPet({ name: 'Tom', categoryId: 3 })];
      // The first answer is lost on the way: the retry with the same key gets the same order.
      const first = await lossy.placeOrder(rex.id);
      expect(proxy.posts).toHaveLength(2);
      expect(new Set(proxy.posts).size).toBe(1);
      expect(first).toEqual({ id: expect.any(Number), petId: rex.id, status: 'placed', placedAt: expect.any(String) });
      const second = await client.placeOrder(tom.id);
      await expect(client.getOrder(first.id)).resolves.toEqual(first);
      const { orders, next } = await client.listOrders({ limit: 1 });
      expect(orders).toHaveLength(1);
      expect((await client.listOrders(next)).orders.map(({ id }) => id)).toContain(first.id === orders[0].id ? second.id : first.id);
      await expect(client.deliverOrder(first.id)).resolves.toMatchObject({ status: 'delivered', deliveredAt: expect.any(String) });
      await expect(client.cancelOrder(second.id)).resolves.toMatchObject({ status: 'cancelled', cancelledAt: expect.any(String) });
      await expect(client.cancelOrder(first.id)).rejects.toMatchObject({ status: 409, code: 'invalid_transition' });
      await expect(client.getPet(rex.id)).resolves.toMatchObject({ status: 'sold' });
    } finally {
      await proxy.close();
    }
  });

  it('changes a pet by merge patch, with If-Match when given, removes it, and counts pets by status', async () => {
    const client = new AnimalStoreClient({ baseUrl: `${origin}/v1`, apiKey: testApp.apiKey, environment: noWait });
    const created = await fetch(`${origin}/v1/pets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${testApp.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
    });
    const pet = (await created.json()) as { id: number };
    const etag = created.headers.get('ETag')!;
    const before = await client.inventory();
    await expect(client.updatePet(pet.id, { status: 'sold' }, { ifMatch: etag })).resolves.toEqual({ id: pet.id, name: 'Rex', categoryId: 1, status: 'sold' });
    await expect(client.updatePet(pet.id, { name: 'Max' }, { ifMatch: etag })).rejects.toMatchObject({ status: 412, code: 'precondition_failed' });
    await expect(client.updatePet(pet.id, { status: 'available' })).rejects.toMatchObject({ status: 409, code: 'invalid_transition' });
    await expect(client.inventory()).resolves.toEqual({ ...before, available: before.available - 1, sold: before.sold + 1 });
    await expect(client.deletePet(pet.id)).resolves.toBeUndefined();
    await expect(client.deletePet(pet.id)).rejects.toMatchObject({ status: 404, code: 'not_found' });
    // Removed, the sold pet counts nowhere.
    await expect(client.inventory()).resolves.toEqual({ ...before, available: before.available - 1 });
  });
});
