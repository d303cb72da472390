import type { AddressInfo } from 'node:net';
import { ApiClient, ApiResponse, expectErrorBody } from './support/api-client';
import { describeOnStore } from './support/describe-store';
import { freePort } from './support/ports';
import { sendRaw } from './support/raw-http';
import { createTestApp, TestApp } from './support/test-app';

/** Keyless callers may send two requests a minute, so the third tells whether two requests shared an identity. */
const TWO_A_MINUTE = { RATE_LIMIT_PLANS: '{"free":{"perMinute":2,"perDay":1000}}' };

describeOnStore('hardened edges', () => {
  describe('the keyless rate-limit identity', () => {
    /** Sends three keyless requests, each from a socket address with an X-Forwarded-For; answers the third. */
    async function third(api: ApiClient, sent: ReadonlyArray<readonly [socket: string, forwardedFor?: string]>): Promise<ApiResponse> {
      const answers: ApiResponse[] = [];
      for (const [remoteAddress, forwardedFor] of sent) {
        answers.push(await api.request({ url: '/v1/pets', remoteAddress, headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } }));
      }
      expect(answers.slice(0, 2).map(({ status }) => status)).toEqual([401, 401]);
      return answers[2];
    }

    describe('without TRUST_PROXY', () => {
      let testApp: TestApp;
      beforeAll(async () => {
        testApp = await createTestApp({ env: TWO_A_MINUTE });
      });
      afterAll(() => testApp?.close());

      it('ignores X-Forwarded-For: whatever it says, the socket address is limited', async () => {
        const answer = await third(testApp.anonymous, [
          ['198.51.100.1', '10.9.9.9, 127.0.0.1'],
          ['198.51.100.1', '10.9.9.10'],
          ['198.51.100.1', 'not-an-ip'],
        ]);
        expectErrorBody(answer, 429, 'rate_limited');
        expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      });

      it('limits an IPv6 client by its /64', async () => {
        expectErrorBody(await third(testApp.anonymous, [['2001:db8:1:2::1'], ['2001:db8:1:2:ffff::9'], ['2001:db8:1:2:abcd:1:2:3']]), 429, 'rate_limited');
        const otherPrefix = await third(testApp.anonymous, [['2001:db8:7:8::1'], ['2001:db8:7:8::2'], ['2001:db8:7:9::1']]);
        expect(otherPrefix.status).toBe(401);
      });

      it('limits an IPv4-mapped IPv6 client as its IPv4 address', async () => {
        expectErrorBody(await third(testApp.anonymous, [['::ffff:192.0.2.44'], ['::ffff:c000:22c'], ['192.0.2.44']]), 429, 'rate_limited');
      });
    });

    describe('with TRUST_PROXY naming the proxy', () => {
      const PROXY = '10.0.0.5';
      let testApp: TestApp;
      beforeAll(async () => {
        testApp = await createTestApp({ env: { ...TWO_A_MINUTE, TRUST_PROXY: `${PROXY},10.1.0.0/16` } });
      });
      afterAll(() => testApp?.close());

      it('limits the address the trusted proxy recorded, whatever the client wrote before it', async () => {
        const answer = await third(testApp.anonymous, [
          [PROXY, '10.9.9.9, 203.0.113.7'],
          [PROXY, '10.9.9.10, 203.0.113.7'],
          ['10.1.2.3', '203.0.113.7'],
        ]);
        expectErrorBody(answer, 429, 'rate_limited');
        expect((await testApp.anonymous.request({ url: '/v1/pets', remoteAddress: PROXY, headers: { 'x-forwarded-for': '203.0.113.8' } })).status).toBe(401);
      });

      it('ignores X-Forwarded-For from a socket it does not trust', async () => {
        const answer = await third(testApp.anonymous, [
          ['198.51.100.2', '203.0.113.20'],
          ['198.51.100.2', '203.0.113.21'],
          ['198.51.100.2', '203.0.113.22'],
        ]);
        expectErrorBody(answer, 429, 'rate_limited');
      });

      it('groups forwarded IPv6 addresses by /64 and maps ::ffff addresses to IPv4', async () => {
        expectErrorBody(await third(testApp.anonymous, [[PROXY, '2001:db8:a:b::1'], [PROXY, '2001:db8:a:b::2'], [PROXY, '2001:db8:a:b:c::3']]), 429, 'rate_limited');
        expectErrorBody(await third(testApp.anonymous, [[PROXY, '::ffff:203.0.113.50'], [PROXY, '203.0.113.50'], [PROXY, '::ffff:203.0.113.50']]), 429, 'rate_limited');
      });

      it('counts what a trusted proxy recorded that is no address under the proxy itself, never as an identity of its own', async () => {
        const answer = await third(testApp.anonymous, [
          ['10.1.9.9', 'not-an-ip'],
          ['10.1.9.9', 'also-not-an-ip'],
          ['10.1.9.9', 'still-not-one'],
        ]);
        expectErrorBody(answer, 429, 'rate_limited');
      });
    });
  });

  describe('absolute links', () => {
    const PUBLIC = 'https://api.example.com/v1';
    const STAGING = 'https://staging.example.com/v1';
    const STEERING = {
      host: 'evil.example>; rel="next", <https://evil.example',
      'x-forwarded-host': 'evil.example',
      'x-forwarded-proto': 'http',
    };

    async function linksOf(testApp: TestApp): Promise<{ next: string; successor: string }> {
      for (let made = 0; made < 2; made++) await testApp.client.post('/v1/pets', { name: `Rex ${made}`, categoryId: 3 });
      const page = await testApp.client.get('/v1/pets?limit=1', STEERING);
      expect(page.status).toBe(200);
      const pet = await testApp.client.get(`/v1/pets/${(page.body as Array<{ id: number }>)[0].id}`, STEERING);
      expect(pet.status).toBe(200);
      return { next: String(page.headers.link), successor: String(pet.headers.link) };
    }

    it('start with PUBLIC_BASE_URL, whatever Host and X-Forwarded-* say, a trusted proxy included', async () => {
      const testApp = await createTestApp({ env: { PUBLIC_BASE_URL: PUBLIC, STAGING_BASE_URL: STAGING, TRUST_PROXY: '127.0.0.1' } });
      try {
        const { next, successor } = await linksOf(testApp);
        expect(next).toMatch(/^<https:\/\/api\.example\.com\/v1\/pets\?limit=1&cursor=[A-Za-z0-9_-]+>; rel="next"$/);
        expect(successor).toBe(`<${PUBLIC}/pets>; rel="successor-version"`);
      } finally {
        await testApp.close();
      }
    });

    it('start with STAGING_BASE_URL in staging', async () => {
      const testApp = await createTestApp({ env: { APP_ENV: 'staging', PUBLIC_BASE_URL: PUBLIC, STAGING_BASE_URL: STAGING } });
      try {
        const { next, successor } = await linksOf(testApp);
        expect(next).toMatch(/^<https:\/\/staging\.example\.com\/v1\/pets\?limit=1&cursor=[A-Za-z0-9_-]+>; rel="next"$/);
        expect(successor).toBe(`<${STAGING}/pets>; rel="successor-version"`);
      } finally {
        await testApp.close();
      }
    });

    it('answers a request with two Host headers 400 validation_failed', async () => {
      const testApp = await createTestApp();
      try {
        await testApp.app.listen(0, '127.0.0.1');
        const port = (testApp.app.getHttpServer().address() as AddressInfo).port;
        const exchange = await sendRaw(
          port,
          `GET /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\nAuthorization: Bearer ${testApp.apiKey}\r\n\r\n`,
          { untilClose: true },
        );
        expectErrorBody(exchange.response!, 400, 'validation_failed');
        const single = await sendRaw(port, `GET /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${testApp.apiKey}\r\nConnection: close\r\n\r\n`);
        expect(single.response?.status).toBe(200);
      } finally {
        await testApp.close();
      }
    });
  });

  describe('what a request costs', () => {
    let testApp: TestApp;
    let petId: number;
    beforeAll(async () => {
      testApp = await createTestApp({ env: { RATE_LIMIT_PLANS: '{"free":{"perMinute":3,"perDay":1000}}' } });
      petId = ((await testApp.client.post('/v1/pets', { name: 'Rex', categoryId: 3 })).body as { id: number }).id;
    });
    afterAll(() => testApp?.close());

    const freeKey = async () => testApp.anonymous.withHeaders({ authorization: `Bearer ${(await testApp.createKey({ plan: 'free' })).secret}` });

    it('charges a 304 for If-None-Match: * as a 200, and a 304 for a named tag not at all', async () => {
      const api = await freeKey();
      const tag = String((await api.get(`/v1/pets/${petId}`)).headers.etag);
      const named = await api.get(`/v1/pets/${petId}`, { 'if-none-match': tag });
      expect([named.status, named.headers['x-ratelimit-remaining']]).toEqual([304, '2']);
      const wildcard = [];
      for (let sent = 0; sent < 2; sent++) wildcard.push(await api.get(`/v1/pets/${petId}`, { 'if-none-match': '*' }));
      expect(wildcard.map((answer) => [answer.status, answer.headers['x-ratelimit-remaining']])).toEqual([
        [304, '1'],
        [304, '0'],
      ]);
      expectErrorBody(await api.get(`/v1/pets/${petId}`, { 'if-none-match': '*' }), 429, 'rate_limited');
    });

    it.each(['/v1/pets/', '/v1/pets/?limit=1', '/v1/'])('counts %s, a 404, in the caller\'s windows', async (url) => {
      const api = await freeKey();
      const answers = [];
      for (let sent = 0; sent < 3; sent++) answers.push(await api.get(url));
      for (const answer of answers) expectErrorBody(answer, 404, 'not_found');
      expect(answers.map((answer) => answer.headers['x-ratelimit-remaining'])).toEqual(['2', '1', '0']);
      expectErrorBody(await api.get(url), 429, 'rate_limited');
    });

    it('counts a keyless /v1/pets/ against the client address', async () => {
      const answers = [];
      for (let sent = 0; sent < 4; sent++) answers.push(await testApp.anonymous.request({ url: '/v1/pets/', remoteAddress: '198.51.100.77' }));
      expect(answers.map(({ status }) => status)).toEqual([404, 404, 404, 429]);
    });
  });

  describe('caches', () => {
    let testApp: TestApp;
    beforeAll(async () => {
      testApp = await createTestApp();
    });
    afterAll(() => testApp?.close());

    it('are told that every /v1 answer is private and varies by Authorization', async () => {
      const page = await testApp.client.get('/v1/pets');
      const answers = [
        page,
        await testApp.client.get('/v1/pets', { 'if-none-match': String(page.headers.etag) }),
        await testApp.anonymous.get('/v1/pets'),
        await testApp.client.get('/v1/pets/999999999'),
        await testApp.client.get('/v1/rate_limit'),
        await testApp.client.get('/v1/pets/'),
      ];
      expect(answers.map(({ status }) => status)).toEqual([200, 304, 401, 404, 200, 404]);
      for (const answer of answers) {
        expect(answer.headers['cache-control']).toBe('private');
        expect(String(answer.headers.vary).split(/,\s*/)).toContain('Authorization');
      }
    });

    it('are told nothing of the kind outside /v1, where the probes keep no-store', async () => {
      const probe = await testApp.anonymous.get('/healthz');
      expect(probe.headers['cache-control']).toBe('no-store');
      expect(probe.headers.vary).toBeUndefined();
      expect((await testApp.anonymous.get('/docs/openapi.json')).headers['cache-control']).not.toBe('private');
    });
  });

  describe('/docs', () => {
    let testApp: TestApp;
    beforeAll(async () => {
      testApp = await createTestApp();
    });
    afterAll(() => testApp?.close());

    it.each(['/docs', '/docs/'])('serves %s and every file its page loads', async (page) => {
      const html = await testApp.anonymous.get(page);
      expect(html.status).toBe(200);
      const assets = [...html.text.matchAll(/(?:src|href)="([^"]+)"/g)].map(([, path]) => new URL(path, `http://x${page}`).pathname);
      expect(assets.length).toBeGreaterThanOrEqual(5);
      for (const asset of assets) expect([asset, (await testApp.anonymous.get(asset)).status]).toEqual([asset, 200]);
      expect((await testApp.anonymous.get('/docs/openapi.json')).status).toBe(200);
    });

    it.each(['/docs/package.json', '/docs/README.md', '/docs/swagger-ui-bundle.js.map', '/docs/swagger-ui.css.map', '/docs/LICENSE', '/docs/index.js', '/docs/absolute-path.js', '/docs/oauth2-redirect.html'])(
      'answers %s 404',
      async (url) => {
        expectErrorBody(await testApp.anonymous.get(url), 404, 'not_found');
      },
    );
  });

  describe('with OPS_PORT', () => {
    let testApp: TestApp;
    let opsPort: number;
    beforeAll(async () => {
      opsPort = await freePort();
      testApp = await createTestApp({ env: { OPS_PORT: String(opsPort), HOST: '127.0.0.1' } });
    });
    afterAll(() => testApp?.close());

    const onOpsPort = async (path: string) => {
      const response = await fetch(`http://127.0.0.1:${opsPort}${path}`);
      return { status: response.status, body: await response.text(), type: response.headers.get('content-type') };
    };

    it('serves /metrics, /readyz and /healthz on the operators\' port, and nothing else there', async () => {
      const metrics = await onOpsPort('/metrics');
      expect(metrics.status).toBe(200);
      expect(metrics.body).toMatch(/^# HELP /m);
      expect(JSON.parse((await onOpsPort('/readyz')).body)).toMatchObject({ status: 'ready' });
      expect((await onOpsPort('/healthz')).status).toBe(200);
      for (const path of ['/v1/pets', '/docs', '/nowhere']) {
        const answer = await onOpsPort(path);
        expect([path, answer.status, JSON.parse(answer.body).code]).toEqual([path, 404, 'not_found']);
      }
    });

    it('answers /metrics and /readyz 404 on the public port, where /healthz stays', async () => {
      expectErrorBody(await testApp.anonymous.get('/metrics'), 404, 'not_found');
      expectErrorBody(await testApp.anonymous.get('/readyz'), 404, 'not_found');
      expect((await testApp.anonymous.get('/healthz')).status).toBe(200);
      expect((await testApp.client.get('/v1/pets')).status).toBe(200);
    });

    it('stops listening there when the service closes', async () => {
      const other = await freePort();
      const closing = await createTestApp({ env: { OPS_PORT: String(other), HOST: '127.0.0.1' }, database: testApp.database });
      expect((await fetch(`http://127.0.0.1:${other}/healthz`)).status).toBe(200);
      await closing.close();
      await expect(fetch(`http://127.0.0.1:${other}/healthz`)).rejects.toThrow();
    });
  });
});
