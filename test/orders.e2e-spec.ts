import { DataSource } from 'typeorm';
import { Clock } from '../src/config/clock';
import { SWEEP_INTERVAL_MS } from '../src/idempotency/application/idempotency-sweeper';
import { ApiClient, collectPages, expectErrorBody, nextLink } from './support/api-client';
import { describeOnStore } from './support/describe-store';
import { FakeClock } from './support/fake-clock';
import { createTestApp, TestApp } from './support/test-app';

interface OrderBody {
  id: number;
  petId: number;
  status: string;
  placedAt: string;
  deliveredAt?: string;
  cancelledAt?: string;
}

const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const HOLD_SECONDS = 600;

describeOnStore('orders API', () => {
  const clock = new FakeClock(Date.UTC(2030, 0, 1));
  let testApp: TestApp;
  let api: ApiClient;
  /** A key of another account, with every scope. */
  let stranger: ApiClient;

  beforeAll(async () => {
    testApp = await createTestApp({
      env: { ORDER_HOLD_SECONDS: String(HOLD_SECONDS), RATE_LIMIT_PLANS: '{"free":{"openOrders":2}}', PUBLIC_BASE_URL: 'https://shop.example.com/v1' },
      overrides: [{ provide: Clock, useValue: clock }],
    });
    api = testApp.client;
    stranger = await clientOf({ plan: 'pro' });
  });
  afterAll(() => testApp?.close());

  async function clientOf(input: { plan: string; scopes?: string[]; account?: string }): Promise<ApiClient> {
    const { secret } = await testApp.createKey(input);
    return testApp.anonymous.withHeaders({ authorization: `Bearer ${secret}` });
  }

  async function newPet(status = 'available'): Promise<number> {
    const response = await api.post<{ id: number }>('/v1/pets', { name: 'Rex', categoryId: 3, status });
    expect(response.status).toBe(201);
    return response.body.id;
  }

  const petStatus = async (petId: number): Promise<string> => (await api.get<{ status: string }>(`/v1/pets/${petId}`)).body.status;

  async function place(client: ApiClient, petId: number): Promise<OrderBody> {
    const response = await client.post<OrderBody>('/v1/store/orders', { petId });
    expect({ status: response.status, body: response.body }).toEqual({ status: 201, body: expect.objectContaining({ petId, status: 'placed' }) });
    return response.body;
  }

  describe('POST /v1/store/orders', () => {
    it('places the order with its Location, and makes the pet pending', async () => {
      const petId = await newPet();
      const response = await api.post<OrderBody>('/v1/store/orders', { petId });
      expect(response.status).toBe(201);
      expect(response.body).toEqual({ id: expect.any(Number), petId, status: 'placed', placedAt: new Date(clock.now()).toISOString() });
      expect(response.body.placedAt).toMatch(RFC3339_UTC);
      // From the configured base address, never the request's Host.
      expect(response.headers.location).toBe(`https://shop.example.com/v1/store/orders/${response.body.id}`);
      expect(response.headers['x-ratelimit-remaining']).toBeDefined();
      expect(await petStatus(petId)).toBe('pending');
      expect((await api.get(`/v1/store/orders/${response.body.id}`)).body).toEqual(response.body);
    });

    it('answers 404 for a pet that does not exist, storing nothing', async () => {
      const before = (await collectPages<OrderBody>(api, '/v1/store/orders?limit=100')).length;
      expectErrorBody(await api.post('/v1/store/orders', { petId: 9007199254740991 }), 404, 'not_found');
      expect(await collectPages<OrderBody>(api, '/v1/store/orders?limit=100')).toHaveLength(before);
    });

    it.each(['pending', 'sold'])('answers 409 pet_not_available for a %s pet, leaving it as it was', async (status) => {
      const petId = await newPet(status);
      expectErrorBody(await api.post('/v1/store/orders', { petId }), 409, 'pet_not_available');
      expect(await petStatus(petId)).toBe(status);
    });

    it('answers 409 pet_not_available for a pet another order holds, whoever asks', async () => {
      const petId = await newPet();
      await place(api, petId);
      expectErrorBody(await api.post('/v1/store/orders', { petId }), 409, 'pet_not_available');
      expectErrorBody(await stranger.post('/v1/store/orders', { petId }), 409, 'pet_not_available');
    });

    it.each([
      ['petId missing', {}, /petId/],
      ['petId a numeric string', { petId: '5' }, /petId/],
      ['petId zero', { petId: 0 }, /petId/],
      ['petId beyond 2^53 - 1', '{"petId":9007199254740993}', /petId/],
      ['an unknown field', { petId: 1, quantity: 2 }, /quantity/],
    ])('answers 400 naming the field for %s', async (_case, payload, field) => {
      const response = await api.post('/v1/store/orders', payload, { 'content-type': 'application/json' });
      expectErrorBody(response, 400, 'validation_failed');
      expect((response.body as { message: string }).message).toMatch(field);
    });

    it('answers a retry with the same Idempotency-Key with the first order, placing one', async () => {
      const petId = await newPet();
      const headers = { 'idempotency-key': `order-${petId}` };
      const first = await api.post<OrderBody>('/v1/store/orders', { petId }, headers);
      expect(first.status).toBe(201);
      const retry = await api.post<OrderBody>('/v1/store/orders', { petId }, headers);
      expect(retry.status).toBe(201);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.body).toEqual(first.body);
      // The replay says where the order is, as the first answer did.
      expect(retry.headers.location).toBe(`https://shop.example.com/v1/store/orders/${first.body.id}`);
      expect(retry.headers.location).toBe(first.headers.location);
      const other = await api.post('/v1/store/orders', { petId: petId + 1_000_000 }, headers);
      expectErrorBody(other, 422, 'idempotency_key_reused');
      const orders = await collectPages<OrderBody>(api, '/v1/store/orders?limit=100');
      expect(orders.filter((order) => order.petId === petId)).toHaveLength(1);
    });

    it("refuses one placed order more than the plan's cap with 409 too_many_open_orders, until one is settled", async () => {
      const free = await clientOf({ plan: 'free' });
      const [a, b, c] = [await newPet(), await newPet(), await newPet()];
      const first = await place(free, a);
      await place(free, b);
      expectErrorBody(await free.post('/v1/store/orders', { petId: c }), 409, 'too_many_open_orders');
      expect(await petStatus(c)).toBe('available');
      // Delivered orders are not open: the place comes back.
      expect((await free.post(`/v1/store/orders/${first.id}/deliver`)).status).toBe(200);
      await place(free, c);
    });

    it('counts the cap per account: a sibling key shares it, another account does not', async () => {
      const one = await clientOf({ plan: 'free', account: 'cap-shared' });
      const sibling = await clientOf({ plan: 'free', account: 'cap-shared' });
      await place(one, await newPet());
      await place(sibling, await newPet());
      expectErrorBody(await one.post('/v1/store/orders', { petId: await newPet() }), 409, 'too_many_open_orders');
      await place(await clientOf({ plan: 'free' }), await newPet());
    });
  });

  describe('deliver and cancel', () => {
    it('delivers: the order delivered with deliveredAt, its pet sold; again, the same; cancel then 409', async () => {
      const petId = await newPet();
      const order = await place(api, petId);
      clock.advance(1_000);
      const delivered = await api.post<OrderBody>(`/v1/store/orders/${order.id}/deliver`);
      expect(delivered.status).toBe(200);
      expect(delivered.body).toEqual({ ...order, status: 'delivered', deliveredAt: new Date(clock.now()).toISOString() });
      expect(await petStatus(petId)).toBe('sold');
      clock.advance(1_000);
      const again = await api.post<OrderBody>(`/v1/store/orders/${order.id}/deliver`);
      expect({ status: again.status, body: again.body }).toEqual({ status: 200, body: delivered.body });
      expectErrorBody(await api.post(`/v1/store/orders/${order.id}/cancel`), 409, 'invalid_transition');
      expect((await api.get(`/v1/store/orders/${order.id}`)).body).toEqual(delivered.body);
      expectErrorBody(await api.post('/v1/store/orders', { petId }), 409, 'pet_not_available');
    });

    it('cancels: the order cancelled with cancelledAt, its pet available to order again; again, the same; deliver then 409', async () => {
      const petId = await newPet();
      const order = await place(api, petId);
      const cancelled = await api.post<OrderBody>(`/v1/store/orders/${order.id}/cancel`);
      expect(cancelled.status).toBe(200);
      expect(cancelled.body).toEqual({ ...order, status: 'cancelled', cancelledAt: new Date(clock.now()).toISOString() });
      expect(await petStatus(petId)).toBe('available');
      const again = await api.post<OrderBody>(`/v1/store/orders/${order.id}/cancel`);
      expect({ status: again.status, body: again.body }).toEqual({ status: 200, body: cancelled.body });
      expectErrorBody(await api.post(`/v1/store/orders/${order.id}/deliver`), 409, 'invalid_transition');
      const second = await place(api, petId);
      expect(second.id).toBeGreaterThan(order.id);
      expect(await petStatus(petId)).toBe('pending');
    });

    it.each(['deliver', 'cancel'])('%s answers 404 for an order that does not exist and 400 for a malformed id', async (action) => {
      expectErrorBody(await api.post(`/v1/store/orders/9007199254740991/${action}`), 404, 'not_found');
      expectErrorBody(await api.post(`/v1/store/orders/abc/${action}`), 400, 'validation_failed');
    });
  });

  describe('a pet a placed order holds', () => {
    it("keeps its status: PATCH of it is 409 pet_reserved, of its name 200; the order's delivery still sells it", async () => {
      const petId = await newPet();
      const order = await place(api, petId);
      for (const status of ['available', 'sold']) {
        const refused = await api.request({ method: 'PATCH', url: `/v1/pets/${petId}`, payload: { status } });
        expectErrorBody(refused, 409, 'pet_reserved');
      }
      expect(await petStatus(petId)).toBe('pending');
      const renamed = await api.request({ method: 'PATCH', url: `/v1/pets/${petId}`, payload: { name: 'Max' } });
      expect({ status: renamed.status, body: renamed.body }).toEqual({ status: 200, body: expect.objectContaining({ name: 'Max', status: 'pending' }) });
      expect((await api.post(`/v1/store/orders/${order.id}/deliver`)).status).toBe(200);
      expect(await petStatus(petId)).toBe('sold');
    });

    it('is not removed: DELETE is 409 pet_reserved until the order is cancelled, then 204', async () => {
      const petId = await newPet();
      const order = await place(api, petId);
      expectErrorBody(await api.request({ method: 'DELETE', url: `/v1/pets/${petId}` }), 409, 'pet_reserved');
      expect(await petStatus(petId)).toBe('pending');
      expect((await api.post(`/v1/store/orders/${order.id}/cancel`)).status).toBe(200);
      expect((await api.request({ method: 'DELETE', url: `/v1/pets/${petId}` })).status).toBe(204);
      expect((await api.get(`/v1/pets/${petId}`)).status).toBe(404);
    });

    it('is held by its placed order alone: a pet sold by PATCH takes no order, and a delivered order keeps its petId once its pet is removed', async () => {
      const sold = await newPet();
      expect((await api.request({ method: 'PATCH', url: `/v1/pets/${sold}`, payload: { status: 'sold' } })).status).toBe(200);
      expectErrorBody(await api.post('/v1/store/orders', { petId: sold }), 409, 'pet_not_available');
      const petId = await newPet();
      const order = await place(api, petId);
      expect((await api.post(`/v1/store/orders/${order.id}/deliver`)).status).toBe(200);
      expect((await api.request({ method: 'DELETE', url: `/v1/pets/${petId}` })).status).toBe(204);
      expect((await api.get<OrderBody>(`/v1/store/orders/${order.id}`)).body).toMatchObject({ petId, status: 'delivered' });
    });

    it('races a PATCH to sold with orders of it: never an order of a sold pet', async () => {
      for (let round = 0; round < 5; round++) {
        const petId = await newPet();
        const [patch, ...placed] = await Promise.all([
          api.request({ method: 'PATCH', url: `/v1/pets/${petId}`, payload: { status: 'sold' } }),
          api.post<OrderBody>('/v1/store/orders', { petId }),
          stranger.post<OrderBody>('/v1/store/orders', { petId }),
        ]);
        const orders = placed.filter(({ status }) => status === 201);
        const status = await petStatus(petId);
        if (patch.status === 200) {
          expect({ status, orders: orders.length }).toEqual({ status: 'sold', orders: 0 });
        } else {
          expectErrorBody(patch, 409, 'pet_reserved');
          expect({ status, orders: orders.length }).toEqual({ status: 'pending', orders: 1 });
        }
        for (const refused of placed.filter(({ status }) => status !== 201)) expectErrorBody(refused, 409, 'pet_not_available');
      }
    });
  });

  describe("another account's orders", () => {
    it('are 404 on get, deliver and cancel, absent from its list, and left as they were', async () => {
      const petId = await newPet();
      const order = await place(api, petId);
      for (const response of [
        await stranger.get(`/v1/store/orders/${order.id}`),
        await stranger.post(`/v1/store/orders/${order.id}/deliver`),
        await stranger.post(`/v1/store/orders/${order.id}/cancel`),
      ]) {
        expectErrorBody(response, 404, 'not_found');
      }
      expect((await collectPages<OrderBody>(stranger, '/v1/store/orders?limit=100')).map(({ id }) => id)).not.toContain(order.id);
      expect((await api.get(`/v1/store/orders/${order.id}`)).body).toEqual(order);
      expect(await petStatus(petId)).toBe('pending');
    });

    it("are a sibling key's own: keys of one account share its orders", async () => {
      const one = await clientOf({ plan: 'pro', account: 'orders-shared' });
      const sibling = await clientOf({ plan: 'pro', account: 'orders-shared' });
      const order = await place(one, await newPet());
      expect((await sibling.get(`/v1/store/orders/${order.id}`)).body).toEqual(order);
      expect((await sibling.post<OrderBody>(`/v1/store/orders/${order.id}/cancel`)).body.status).toBe('cancelled');
    });
  });

  describe('GET /v1/store/orders', () => {
    let client: ApiClient;
    let orders: OrderBody[];

    beforeAll(async () => {
      client = await clientOf({ plan: 'pro' });
      orders = [];
      for (let i = 0; i < 5; i++) orders.push(await place(client, await newPet()));
      await client.post(`/v1/store/orders/${orders[1].id}/deliver`);
      await client.post(`/v1/store/orders/${orders[3].id}/cancel`);
      orders = await Promise.all(orders.map(async ({ id }) => (await client.get<OrderBody>(`/v1/store/orders/${id}`)).body));
    });

    it('is a bare array of the account alone, ordered by id, in pages linked by rel="next"', async () => {
      const first = await client.get<OrderBody[]>('/v1/store/orders?limit=2');
      expect(first.status).toBe(200);
      expect(first.body).toEqual(orders.slice(0, 2));
      expect(String(first.headers.link)).toMatch(/^<https:\/\/shop\.example\.com\/v1\/store\/orders\?limit=2&cursor=[A-Za-z0-9_-]+>; rel="next"$/);
      expect(await collectPages<OrderBody>(client, '/v1/store/orders?limit=2')).toEqual(orders);
      const last = await client.get('/v1/store/orders?limit=5');
      expect(last.headers.link).toBeUndefined();
    });

    it.each([
      ['placed', [0, 2, 4]],
      ['delivered', [1]],
      ['cancelled', [3]],
    ])('filters by status %s, keeping it in the next link', async (status, indexes) => {
      const page = await client.get<OrderBody[]>(`/v1/store/orders?status=${status}&limit=1`);
      expect(page.body).toEqual([orders[indexes[0]]]);
      if (indexes.length > 1) expect(nextLink(page.headers)).toMatch(new RegExp(`status=${status}`));
      expect(await collectPages<OrderBody>(client, `/v1/store/orders?status=${status}&limit=1`)).toEqual(indexes.map((index) => orders[index]));
    });

    it.each(['limit=0', 'limit=101', 'limit=abc', 'status=PLACED', 'status=pending', 'cursor=%25%25', 'colour=red'])('answers 400 for %s', async (query) => {
      expectErrorBody(await client.get(`/v1/store/orders?${query}`), 400, 'validation_failed');
    });

    it('answers 304 to a current ETag and 200 with a new one once an order changes', async () => {
      const current = await client.get('/v1/store/orders');
      expect(current.headers.etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
      const notModified = await client.get('/v1/store/orders', { 'if-none-match': String(current.headers.etag) });
      expect({ status: notModified.status, text: notModified.text, etag: notModified.headers.etag }).toEqual({ status: 304, text: '', etag: current.headers.etag });
      await client.post(`/v1/store/orders/${orders[0].id}/cancel`);
      const changed = await client.get('/v1/store/orders', { 'if-none-match': String(current.headers.etag) });
      expect(changed.status).toBe(200);
      expect(changed.headers.etag).not.toBe(current.headers.etag);
      const order = await client.get(`/v1/store/orders/${orders[2].id}`);
      expect((await client.get(`/v1/store/orders/${orders[2].id}`, { 'if-none-match': String(order.headers.etag) })).status).toBe(304);
    });
  });

  describe('the hold', () => {
    it('cancels a placed order not delivered within ORDER_HOLD_SECONDS at the next sweep, its pet available again', async () => {
      const petId = await newPet();
      const order = await place(api, petId);
      const delivered = await place(api, await newPet());
      await api.post(`/v1/store/orders/${delivered.id}/deliver`);
      clock.advance(HOLD_SECONDS * 1000 - 1);
      expect((await api.get<OrderBody>(`/v1/store/orders/${order.id}`)).body.status).toBe('placed');
      // Each step past a sweep's time runs it once the one before has finished, whatever the store's speed.
      await settled(async () => {
        clock.advance(SWEEP_INTERVAL_MS);
        return (await api.get<OrderBody>(`/v1/store/orders/${order.id}`)).body.status === 'cancelled';
      });
      const expired = await api.get<OrderBody>(`/v1/store/orders/${order.id}`);
      expect(expired.body).toEqual({ ...order, status: 'cancelled', cancelledAt: expect.stringMatching(RFC3339_UTC) });
      expect(await petStatus(petId)).toBe('available');
      expect((await api.get<OrderBody>(`/v1/store/orders/${delivered.id}`)).body.status).toBe('delivered');
    });

    it('answers a delivery asked after the hold ended 409 invalid_transition, the order cancelled, whether or not the sweep came first', async () => {
      const petId = await newPet();
      const order = await place(api, petId);
      clock.advance(HOLD_SECONDS * 1000);
      expectErrorBody(await api.post(`/v1/store/orders/${order.id}/deliver`), 409, 'invalid_transition');
      expect((await api.get<OrderBody>(`/v1/store/orders/${order.id}`)).body.status).toBe('cancelled');
      expect(await petStatus(petId)).toBe('available');
    });
  });

  describe('scopes', () => {
    it('needs orders:read to list and get, orders:write to place, deliver and cancel', async () => {
      const reader = await clientOf({ plan: 'pro', scopes: ['orders:read', 'pets:read'] });
      const petsOnly = await clientOf({ plan: 'pro', scopes: ['pets:read', 'pets:write'] });
      expect((await reader.get('/v1/store/orders')).status).toBe(200);
      for (const response of [
        await reader.post('/v1/store/orders', { petId: 1 }),
        await reader.post('/v1/store/orders/1/deliver'),
        await reader.post('/v1/store/orders/1/cancel'),
        await petsOnly.get('/v1/store/orders'),
        await petsOnly.get('/v1/store/orders/1'),
      ]) {
        expectErrorBody(response, 403, 'insufficient_scope');
      }
      const writer = await clientOf({ plan: 'pro', scopes: ['orders:write'] });
      expect((await writer.post('/v1/store/orders', { petId: await newPet() })).status).toBe(201);
    });

    it('is 404 without /v1 and 401 without a key', async () => {
      expectErrorBody(await api.get('/store/orders'), 404, 'not_found');
      expectErrorBody(await testApp.anonymous.get('/v1/store/orders'), 401, 'unauthorized');
    });
  });

  describe('the store', () => {
    it('refuses a second placed or delivered order of one pet however it is written', async () => {
      const petId = await newPet();
      const order = await place(api, petId);
      const dataSource = testApp.app.get(DataSource);
      const [{ accountId }] = (await dataSource.query('SELECT account_id AS accountId FROM orders WHERE id = ?', [order.id])) as Array<{ accountId: number }>;
      const insert = "INSERT INTO orders (account_id, pet_id, status, active_pet_id, placed_at, hold_until) VALUES (?, ?, 'delivered', ?, 0, 0)";
      await expect(dataSource.query(insert, [accountId, petId, petId])).rejects.toThrow();
      // And an order that does not say its pet is held, while it is placed, is refused by the check.
      await expect(dataSource.query("INSERT INTO orders (account_id, pet_id, status, active_pet_id, placed_at, hold_until) VALUES (?, ?, 'placed', NULL, 0, 0)", [accountId, petId])).rejects.toThrow();
    });
  });
});

/** Waits, within a bound, for something the service does off the request path. */
async function settled(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('not settled within 5 s');
}
