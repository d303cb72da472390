import { expectErrorBody } from './support/api-client';
import { createTestApp, TestApp } from './support/test-app';
import { describeWithRedis, randomKeyPrefix, TEST_REDIS_URL } from './support/test-redis';

describeWithRedis('readiness with the Redis rate-limit store', () => {
  const apps: TestApp[] = [];
  afterAll(() => Promise.all(apps.map((app) => app.close())));

  const start = async (redisUrl: string) => {
    const testApp = await createTestApp({ store: 'sqlite', env: { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: randomKeyPrefix() } });
    apps.push(testApp);
    return testApp;
  };

  it('reports Redis among the checks when it answers', async () => {
    const testApp = await start(TEST_REDIS_URL);
    // Not ready until the connection is up, which takes a moment after start.
    let response = await testApp.anonymous.get('/readyz');
    for (let tries = 0; response.status !== 200 && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      response = await testApp.anonymous.get('/readyz');
    }
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ready', checks: { database: 'up', redis: 'up' } });
  });

  it('answers 503 naming Redis, and nothing of its address, when it does not', async () => {
    const testApp = await start('redis://127.0.0.1:1');
    const response = await testApp.anonymous.get('/readyz');
    expectErrorBody(response, 503, 'service_unavailable');
    expect((response.body as { message: string }).message).toMatch(/redis/);
    expect(response.text).not.toMatch(/127\.0\.0\.1|:1\b|ECONNREFUSED/);
    // Requests are still served, from per-instance counters.
    expect((await testApp.client.get('/v1/pets')).status).toBe(200);
  });
});
