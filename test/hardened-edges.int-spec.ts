import { ApiClient, expectErrorBody } from './support/api-client';
import { createTestApp, TestApp } from './support/test-app';
import { deleteKeysUnder, describeWithRedis, randomKeyPrefix, TEST_REDIS_URL } from './support/test-redis';

const PROXY = '10.0.0.5';

describeWithRedis('hardened edges on counters shared through Redis', () => {
  const prefix = randomKeyPrefix();
  const instances: TestApp[] = [];

  beforeAll(async () => {
    const env = { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix, TRUST_PROXY: PROXY, RATE_LIMIT_PLANS: '{"free":{"perMinute":2,"perDay":1000}}' };
    instances.push(await createTestApp({ store: 'sqlite', env }));
    instances.push(await createTestApp({ store: 'sqlite', env, database: instances[0].database }));
  }, 60_000);

  afterAll(async () => {
    for (const instance of [...instances].reverse()) await instance.close();
    await deleteKeysUnder(prefix);
  });

  /** The same client on each instance in turn, as a balancer spreads it. */
  const onEach = (clients: readonly ApiClient[]) => (sent: number) => clients[sent % clients.length];

  it('limits a forwarded IPv6 client by its /64 on every instance, whatever it wrote itself', async () => {
    const via = onEach(instances.map((instance) => instance.anonymous));
    const statuses = [];
    for (const [sent, forwardedFor] of ['1.2.3.4, 2001:db8:c:d::1', '2001:db8:c:d::2', '9.9.9.9, 2001:db8:c:d:e::3'].entries()) {
      statuses.push((await via(sent).request({ url: '/v1/pets', remoteAddress: PROXY, headers: { 'x-forwarded-for': forwardedFor } })).status);
    }
    expect(statuses).toEqual([401, 401, 429]);
  });

  it('counts /v1/pets/ and charges If-None-Match: * in the shared windows', async () => {
    const { secret } = await instances[0].createKey({ plan: 'free' });
    const via = onEach(instances.map((instance) => instance.anonymous.withHeaders({ authorization: `Bearer ${secret}` })));
    expectErrorBody(await via(0).get('/v1/pets/'), 404, 'not_found');
    const wildcard = await via(1).get('/v1/pets', { 'if-none-match': '*' });
    expect([wildcard.status, wildcard.headers['x-ratelimit-remaining']]).toEqual([304, '0']);
    expectErrorBody(await via(2).get('/v1/pets/'), 429, 'rate_limited');
  });
});
