import { Clock } from '../src/config/clock';
import { LOG_DESTINATION } from '../src/ops/logging';
import { OUTCOMES } from '../src/ops/metrics';
import { ApiClient, expectErrorBody } from './support/api-client';
import { describeOnStore } from './support/describe-store';
import { FakeClock } from './support/fake-clock';
import { createTestApp, TestApp } from './support/test-app';

interface LogLine {
  level: string;
  msg: string;
  context?: string;
  requestId?: string;
  status?: number;
  keyId?: number;
  accountId?: number;
  plan?: string;
  code?: string;
  banUntil?: string;
  banSeconds?: number;
}

const BAN_SECONDS = 600;

/** Every sample of one metric, as `{labels} value` lines. */
function samplesOf(metricsText: string, name: string): string[] {
  return metricsText.split('\n').filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));
}

describeOnStore('who calls, in the logs and metrics', () => {
  let testApp: TestApp;
  const clock = new FakeClock(Date.UTC(2030, 0, 1, 12, 0, 0));
  const written: string[] = [];
  const lines = (): LogLine[] => written.join('').split('\n').filter(Boolean).map((line) => JSON.parse(line) as LogLine);
  const requestLine = (requestId: string) => lines().filter((line) => line.requestId === requestId && line.msg.startsWith('request '));
  const newKey = async (account?: string) => {
    const { id, accountId, secret } = await testApp.createKey({ plan: 'free', account });
    return { id, accountId, secret, client: testApp.anonymous.withHeaders({ authorization: `Bearer ${secret}` }) };
  };

  beforeAll(async () => {
    testApp = await createTestApp({
      env: { LOG_LEVEL: 'trace', RATE_LIMIT_PLANS: '{"free":{"perMinute":3,"perDay":100}}', BAN_AFTER_REJECTIONS: '2', BAN_SECONDS: String(BAN_SECONDS) },
      overrides: [
        { provide: LOG_DESTINATION, useValue: { write: (chunk: string) => written.push(chunk) } },
        { provide: Clock, useValue: clock },
      ],
    });
  });
  afterAll(() => testApp?.close());

  it("names the key's id, account and plan on its request's line, never its secret", async () => {
    const { id, accountId, secret, client } = await newKey('logged-account');
    const response = await client.get('/v1/pets', { 'X-Request-Id': 'keyed-line' });
    expect(response.status).toBe(200);
    const [line, ...others] = requestLine('keyed-line');
    expect(others).toEqual([]);
    expect(line).toMatchObject({ level: 'info', status: 200, keyId: id, accountId, plan: 'free' });
    expect(line.code).toBeUndefined();
    expect(written.join('')).not.toContain(secret);
  });

  it("names a refusal's code, and names no key for a request without one", async () => {
    const { id, client } = await newKey();
    expectErrorBody(await client.get('/v1/pets/987654321', { 'X-Request-Id': 'refused-line' }), 404, 'not_found');
    expect(requestLine('refused-line')[0]).toMatchObject({ status: 404, code: 'not_found', keyId: id, plan: 'free' });

    expectErrorBody(await testApp.anonymous.get('/v1/pets', { 'X-Request-Id': 'anonymous-line' }), 401, 'unauthorized');
    const [anonymous] = requestLine('anonymous-line');
    expect(anonymous).toMatchObject({ status: 401, code: 'unauthorized' });
    expect(anonymous).not.toHaveProperty('keyId');
    expect(anonymous).not.toHaveProperty('plan');
  });

  it('logs a ban once, on the refusal that imposed it, with its end; every refusal names its code', async () => {
    const { id, accountId, client } = await newKey();
    for (let i = 0; i < 3; i++) expect((await client.get('/v1/pets')).status).toBe(200);
    // The episode's first refusal, then past its first second, so that the refusals count toward a ban (the burst rule).
    expectErrorBody(await client.get('/v1/pets'), 429, 'rate_limited');
    clock.advance(1_500);
    const refusals = [];
    for (let i = 0; i < 8; i++) refusals.push(await client.get('/v1/pets', { 'X-Request-Id': `flood-${i}` }));
    const codes = refusals.map((response) => (response.body as { code: string }).code);
    expect(codes).toContain('api_key_banned');
    const firstBanned = codes.indexOf('api_key_banned');
    const banUntil = new Date(clock.now() + BAN_SECONDS * 1000).toISOString();

    const bans = lines().filter((line) => line.msg.includes('banned until') && line.keyId === id);
    expect(bans).toEqual([expect.objectContaining({ level: 'warn', context: 'RateLimit', keyId: id, accountId, plan: 'free', banUntil, banSeconds: BAN_SECONDS })]);
    expect(bans[0].msg).toBe(`API key ${id} banned until ${banUntil} for sending while rate limited`);
    refusals.forEach((_, i) => expect(requestLine(`flood-${i}`)[0]).toMatchObject({ status: 429, code: codes[i], keyId: id }));
    expect(codes.slice(firstBanned)).toEqual(codes.slice(firstBanned).map(() => 'api_key_banned'));

    // Still banned a minute later: refused, and not logged again.
    clock.advance(60_000);
    expectErrorBody(await client.get('/v1/pets'), 429, 'api_key_banned');
    expect(lines().filter((line) => line.msg.includes('banned until') && line.keyId === id)).toHaveLength(1);
  });

  it('counts /v1 requests by plan and outcome, with no key or account among the labels', async () => {
    const { client } = await newKey();
    const metrics = new ApiClient(testApp.app);
    const before = samplesOf((await metrics.get('/metrics')).text, 'api_requests_total');
    const value = (samples: string[], labels: string) => Number(samples.find((line) => line.startsWith(`api_requests_total{${labels}} `))?.split(' ')[1] ?? 0);
    await client.get('/v1/pets');
    await client.get('/v1/pets/987654321');
    await testApp.anonymous.get('/v1/pets');
    const text = (await metrics.get('/metrics')).text;
    const after = samplesOf(text, 'api_requests_total');
    expect(value(after, 'plan="free",outcome="success"') - value(before, 'plan="free",outcome="success"')).toBe(1);
    expect(value(after, 'plan="free",outcome="client_error"') - value(before, 'plan="free",outcome="client_error"')).toBe(1);
    expect(value(after, 'plan="anonymous",outcome="unauthorized"') - value(before, 'plan="anonymous",outcome="unauthorized"')).toBe(1);
    // Only the two labels, each from a fixed set: the plans, anonymous, and the outcomes.
    for (const line of after) {
      const match = /^api_requests_total\{plan="([a-z]+)",outcome="([a-z_]+)"\} \d+$/.exec(line);
      expect(match).not.toBeNull();
      expect(['free', 'pro', 'business', 'enterprise', 'anonymous']).toContain(match?.[1]);
      expect(OUTCOMES).toContain(match?.[2]);
    }
    expect(text).toMatch(/^api_requests_total\{plan="free",outcome="api_key_banned"\} [1-9]\d*$/m);
    expect(text).not.toMatch(/key_?id=|account_?id=/i);
  });

  it('says the rate limits are counted by this instance alone when there is no Redis', async () => {
    const text = (await new ApiClient(testApp.app).get('/metrics')).text;
    expect(samplesOf(text, 'rate_limit_store_shared')).toEqual(['rate_limit_store_shared 0']);
  });
});
