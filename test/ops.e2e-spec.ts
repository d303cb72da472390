import { DataSource } from 'typeorm';
import { Clock } from '../src/config/clock';
import { RequestDrain } from '../src/ops/request-drain';
import { ApiClient, expectErrorBody } from './support/api-client';
import { describeOnStore } from './support/describe-store';
import { FakeClock } from './support/fake-clock';
import { createTestApp, TestApp } from './support/test-app';

/** The value of one sample of the metrics text, 0 when the series is absent. */
function sample(metricsText: string, series: string): number {
  const line = metricsText.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

describeOnStore('operational endpoints', () => {
  let testApp: TestApp;
  /** Operational routes need no key: this client sends none. */
  let anonymous: ApiClient;

  beforeAll(async () => {
    testApp = await createTestApp();
    anonymous = new ApiClient(testApp.app);
  });
  afterAll(() => testApp?.close());

  const metricsText = async (): Promise<string> => (await anonymous.get('/metrics')).text;

  describe('GET /healthz', () => {
    it('answers 200 {"status":"ok"} without a key, never cached', async () => {
      const response = await anonymous.get('/healthz');
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ status: 'ok' });
      expect(response.headers['cache-control']).toBe('no-store');
    });

    it('is not served under /v1', async () => {
      expectErrorBody(await anonymous.get('/v1/healthz'), 404, 'not_found');
    });
  });

  describe('GET /readyz', () => {
    it('answers 200 with the state of each check when the database answers', async () => {
      const response = await anonymous.get('/readyz');
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ status: 'ready', checks: { database: 'up' } });
      expect(response.headers['cache-control']).toBe('no-store');
    });

    it('answers 503 service_unavailable naming the database, and nothing about how to reach it, when it is gone', async () => {
      const broken = await createTestApp();
      try {
        await broken.app.get(DataSource).destroy();
        const response = await new ApiClient(broken.app).get<{ message: string }>('/readyz');
        expectErrorBody(response, 503, 'service_unavailable');
        expect(response.body.message).toBe('Not ready: database is down');
        expect((await new ApiClient(broken.app).get('/healthz')).status).toBe(200);
      } finally {
        await broken.close();
      }
    });
  });

  describe('GET /metrics', () => {
    it('serves the Prometheus text format without a key, with the default process metrics', async () => {
      const response = await anonymous.get('/metrics');
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
      expect(response.text).toMatch(/^# TYPE http_requests_total counter$/m);
      expect(response.text).toMatch(/^# TYPE http_request_duration_seconds histogram$/m);
      expect(response.text).toMatch(/^process_cpu_user_seconds_total \d/m);
      expect(response.text).toMatch(/^nodejs_heap_size_used_bytes \d/m);
      expect(response.text).toMatch(/^rate_limit_rejections_total\{code="rate_limited"\} 0$/m);
      expect(response.text).toMatch(/^rate_limit_rejections_total\{code="api_key_banned"\} 0$/m);
    });

    it('counts a request under its route template once it is answered', async () => {
      const series = 'http_requests_total{method="GET",route="/v1/pets/:petId",status="404"}';
      const histogram = 'http_request_duration_seconds_count{method="GET",route="/v1/pets/:petId",status="404"}';
      const before = await metricsText();
      expectErrorBody(await testApp.client.get('/v1/pets/987654'), 404, 'not_found');
      const after = await metricsText();
      expect(sample(after, series)).toBe(sample(before, series) + 1);
      expect(sample(after, histogram)).toBe(sample(before, histogram) + 1);
    });

    it('counts requests to every route, those of the API document included, under their own template', async () => {
      const series = 'http_requests_total{method="GET",route="/docs/openapi.json",status="200"}';
      const before = sample(await metricsText(), series);
      expect((await anonymous.get('/docs/openapi.json')).status).toBe(200);
      expect(sample(await metricsText(), series)).toBe(before + 1);
    });

    it('serves the docs page from /docs/index.html too, by sending it to /docs/, where every file it names is found', async () => {
      const index = await anonymous.get('/docs/index.html');
      expect(index.status).toBe(301);
      expect(index.headers.location).toBe('./');
      const page = await anonymous.get('/docs/');
      expect(page.status).toBe(200);
      const files = [...page.text.matchAll(/(?:href|src)="([^"]+)"/g)].map(([, file]) => new URL(file, 'http://host/docs/').pathname);
      expect(files.length).toBeGreaterThan(0);
      expect(files.filter((file) => file.startsWith('/docs/docs/'))).toEqual([]);
      for (const file of files) expect([file, (await anonymous.get(file)).status]).toEqual([file, 200]);
    });

    it('counts unknown paths under one route label, so labels cannot multiply', async () => {
      const series = 'http_requests_total{method="GET",route="unmatched",status="404"}';
      const before = sample(await metricsText(), series);
      await anonymous.get('/no/such/path-1');
      await anonymous.get('/no/such/path-2');
      const after = await metricsText();
      expect(sample(after, series)).toBe(before + 2);
      expect(after).not.toContain('path-1');
    });

    it('counts unknown /v1 addresses under the catch-all route template', async () => {
      const series = 'http_requests_total{method="GET",route="/v1/*",status="404"}';
      const before = sample(await metricsText(), series);
      await testApp.client.get('/v1/no/such/path-1');
      await anonymous.get('/v1/no-such-path-2');
      const after = await metricsText();
      expect(sample(after, series)).toBe(before + 2);
      expect(after).not.toContain('path-1');
    });

    it('counts each 429 by its code, rate_limited or api_key_banned', async () => {
      const clock = new FakeClock(Date.now());
      const limited = await createTestApp({
        env: { RATE_LIMIT_PLANS: '{"free":{"perMinute":1,"perDay":100}}', BAN_AFTER_REJECTIONS: '1' },
        overrides: [{ provide: Clock, useValue: clock }],
      });
      try {
        const { secret } = await limited.createKey({ plan: 'free' });
        const client = limited.anonymous.withHeaders({ authorization: `Bearer ${secret}` });
        const codeOf = async () => ((await client.get('/v1/pets')).body as { code?: string }).code;
        const codes = [await codeOf(), await codeOf()];
        // Past the second of a burst, refusals count toward the ban.
        clock.advance(1_000);
        for (let i = 0; i < 3; i++) codes.push(await codeOf());
        expect(codes).toEqual([undefined, 'rate_limited', 'rate_limited', 'api_key_banned', 'api_key_banned']);
        const text = (await limited.anonymous.get('/metrics')).text;
        expect(sample(text, 'rate_limit_rejections_total{code="rate_limited"}')).toBe(2);
        expect(sample(text, 'rate_limit_rejections_total{code="api_key_banned"}')).toBe(2);
      } finally {
        await limited.close();
      }
    });

    it('counts created pets in pets_created_total, and rejected creates nowhere', async () => {
      const before = sample(await metricsText(), 'pets_created_total');
      expect((await testApp.client.post('/v1/pets', { name: 'Rex', categoryId: 1 })).status).toBe(201);
      expect((await testApp.client.post('/v1/pets', { name: '', categoryId: 1 })).status).toBe(400);
      const after = await metricsText();
      expect(sample(after, 'pets_created_total')).toBe(before + 1);
      expect(sample(after, 'http_requests_total{method="POST",route="/v1/pets",status="400"}')).toBeGreaterThanOrEqual(1);
    });

    it('keeps one registry per app: a second app in the same process starts from zero', async () => {
      const other = await createTestApp({ database: testApp.database });
      try {
        const series = 'http_requests_total{method="GET",route="/healthz",status="200"}';
        await anonymous.get('/healthz');
        const text = (await new ApiClient(other.app).get('/metrics')).text;
        expect(sample(text, series)).toBe(0);
        expect(sample(await metricsText(), series)).toBeGreaterThanOrEqual(1);
      } finally {
        await other.close();
      }
    });
  });

  describe('while shutting down', () => {
    it('answers every new request 503 service_unavailable with Retry-After on a closing connection, with the usual headers', async () => {
      const draining = await createTestApp({ database: testApp.database });
      try {
        await expect(draining.app.get(RequestDrain).drain(1_000)).resolves.toBe(true);
        for (const url of ['/v1/pets', '/readyz']) {
          const response = await draining.client.get(url, { 'X-Request-Id': 'late-caller' });
          expectErrorBody(response, 503, 'service_unavailable');
          expect(response.headers).toMatchObject({ connection: 'close', 'retry-after': '1', 'x-request-id': 'late-caller', 'x-content-type-options': 'nosniff' });
          expect(response.headers['content-security-policy']).toContain("default-src 'self'");
        }
      } finally {
        await draining.close();
      }
    });
  });
});
