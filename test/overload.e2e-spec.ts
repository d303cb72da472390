import { expectErrorBody } from './support/api-client';
import { describeOnStore } from './support/describe-store';
import { createTestApp, TestApp } from './support/test-app';
import { waitFor } from './support/wait-for';

/** A bound far below what blocking the loop in steps of BLOCK_MS gives, and far above an idle loop's delay. */
const MAX_EVENT_LOOP_DELAY_MS = 100;
const BLOCK_MS = 300;

describeOnStore('overload', () => {
  let testApp: TestApp;

  beforeAll(async () => {
    testApp = await createTestApp({ env: { MAX_EVENT_LOOP_DELAY_MS: String(MAX_EVENT_LOOP_DELAY_MS) } });
  });
  afterAll(() => testApp?.close());

  const isUnderPressure = () => testApp.app.getHttpAdapter().getInstance().isUnderPressure();

  /** Holds the event loop up, BLOCK_MS at a time, until the load check's sample counts it as behind (or 10 s pass). */
  async function fallBehind(): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (!isUnderPressure()) {
      if (Date.now() > deadline) throw new Error('The event loop was never counted as behind');
      const until = Date.now() + BLOCK_MS;
      while (Date.now() < until) {
        // Busy on purpose: this is the late work the service must not queue requests behind.
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  it('answers 503 service_unavailable with Retry-After while the event loop is behind, keeps the probes answered, and serves again once it catches up', async () => {
    await fallBehind();
    const refused = await testApp.client.get('/v1/pets');
    const probes = [await testApp.anonymous.get('/healthz'), await testApp.anonymous.get('/readyz'), await testApp.anonymous.get('/metrics')];

    expectErrorBody(refused, 503, 'service_unavailable');
    expect(refused.headers).toMatchObject({ 'retry-after': '5', 'x-request-id': expect.any(String), 'x-content-type-options': 'nosniff' });
    expect(probes.map(({ status }) => status)).toEqual([200, 200, 200]);
    expect(probes[0].body).toEqual({ status: 'ok' });
    expect(isUnderPressure()).toBe(true);

    await waitFor(async () => !isUnderPressure(), 'the event loop to catch up', 10_000);
    expect((await testApp.client.get('/v1/pets')).status).toBe(200);
  });
});
