import { ApiClient, expectErrorBody } from './support/api-client';
import { describeOnStore } from './support/describe-store';
import { createTestApp, TestApp } from './support/test-app';

const ALLOWED = 'https://shop.example';

describeOnStore('security headers and CORS', () => {
  describe('without CORS_ORIGINS', () => {
    let testApp: TestApp;
    beforeAll(async () => {
      testApp = await createTestApp();
    });
    afterAll(() => testApp?.close());

    it.each([
      ['an operation', '/v1/pets', 200, 'client'],
      ['an unknown path', '/nowhere', 404, 'client'],
      ['a probe', '/healthz', 200, 'client'],
      ['the API document', '/docs/openapi.json', 200, 'client'],
      ['a refused query', '/v1/pets?limit=0', 400, 'client'],
      ['a missing pet', '/v1/pets/999999999', 404, 'client'],
      ['a request without a key', '/v1/pets', 401, 'anonymous'],
    ] as const)('sends the security headers on %s', async (_, url, status, caller) => {
      const response = await testApp[caller].get(url);
      expect(response.status).toBe(status);
      const csp = String(response.headers['content-security-policy']);
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("style-src 'self' 'unsafe-inline'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
      expect(response.headers).toMatchObject({
        'x-content-type-options': 'nosniff',
        'x-frame-options': 'DENY',
        'strict-transport-security': expect.stringMatching(/^max-age=\d+/),
        'referrer-policy': 'no-referrer',
      });
    });

    it('sends no CORS headers to any origin, and answers a preflight 404', async () => {
      const response = await testApp.client.get('/v1/pets', { Origin: ALLOWED });
      expect(response.status).toBe(200);
      expect(response.headers['access-control-allow-origin']).toBeUndefined();
      const preflight = await testApp.client.request({
        method: 'OPTIONS',
        url: '/v1/pets',
        headers: { Origin: ALLOWED, 'Access-Control-Request-Method': 'POST' },
      });
      expectErrorBody(preflight, 404, 'not_found');
      expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    });
  });

  describe(`with CORS_ORIGINS=${ALLOWED}`, () => {
    let testApp: TestApp;
    let api: ApiClient;
    beforeAll(async () => {
      testApp = await createTestApp({ env: { CORS_ORIGINS: `${ALLOWED}, https://admin.example` } });
      api = testApp.client;
    });
    afterAll(() => testApp?.close());

    it('allows a listed origin and exposes the headers a client reads', async () => {
      const response = await api.get('/v1/pets', { Origin: ALLOWED });
      expect(response.status).toBe(200);
      expect(response.headers['access-control-allow-origin']).toBe(ALLOWED);
      const exposed = String(response.headers['access-control-expose-headers']).split(/,\s*/);
      expect(exposed).toEqual(
        expect.arrayContaining([
          'X-RateLimit-Limit',
          'X-RateLimit-Remaining',
          'X-RateLimit-Reset',
          'RateLimit',
          'RateLimit-Policy',
          'Retry-After',
          'Link',
          'ETag',
          'Location',
          'Deprecation',
          'Sunset',
          'Idempotent-Replayed',
          'WWW-Authenticate',
          'X-Request-Id',
        ]),
      );
    });

    it('keeps CORS headers on error responses for a listed origin', async () => {
      const response = await api.get('/v1/pets/999999', { Origin: 'https://admin.example' });
      expectErrorBody(response, 404, 'not_found');
      expect(response.headers['access-control-allow-origin']).toBe('https://admin.example');
    });

    it('answers a preflight from a listed origin with the methods and headers it may send', async () => {
      const preflight = await api.request({
        method: 'OPTIONS',
        url: '/v1/pets',
        headers: { Origin: ALLOWED, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization,content-type' },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers['access-control-allow-origin']).toBe(ALLOWED);
      expect(String(preflight.headers['access-control-allow-methods'])).toContain('POST');
      expect(String(preflight.headers['access-control-allow-headers']).toLowerCase()).toContain('authorization');
      expect(String(preflight.headers['access-control-allow-headers']).toLowerCase()).toContain('if-none-match');
    });

    it('lets a listed origin change and remove pets with If-Match and a merge patch, and read a create\'s Location', async () => {
      const preflight = await api.request({
        method: 'OPTIONS',
        url: '/v1/pets/1',
        headers: { Origin: ALLOWED, 'Access-Control-Request-Method': 'PATCH', 'Access-Control-Request-Headers': 'authorization,content-type,if-match' },
      });
      expect(preflight.status).toBe(204);
      expect(String(preflight.headers['access-control-allow-methods']).split(/,\s*/)).toEqual(expect.arrayContaining(['PATCH', 'DELETE']));
      expect(String(preflight.headers['access-control-allow-headers']).toLowerCase().split(/,\s*/)).toEqual(
        expect.arrayContaining(['authorization', 'content-type', 'if-match']),
      );
      const created = await api.post<{ id: number }>('/v1/pets', { name: 'Rex', categoryId: 1 }, { Origin: ALLOWED });
      expect(created.headers.location).toMatch(new RegExp(`/v1/pets/${created.body.id}$`));
      expect(String(created.headers['access-control-expose-headers']).split(/,\s*/)).toEqual(expect.arrayContaining(['Location', 'ETag']));
      const changed = await api.request({
        method: 'PATCH',
        url: `/v1/pets/${created.body.id}`,
        payload: JSON.stringify({ status: 'sold' }),
        headers: { Origin: ALLOWED, 'content-type': 'application/merge-patch+json', 'if-match': String(created.headers.etag) },
      });
      expect(changed.status).toBe(200);
      expect(changed.headers['access-control-allow-origin']).toBe(ALLOWED);
    });

    it('lets a browser send every method and request header the API reads', async () => {
      const preflight = await api.request({
        method: 'OPTIONS',
        url: '/v1/pets/1',
        headers: {
          Origin: ALLOWED,
          'Access-Control-Request-Method': 'PATCH',
          'Access-Control-Request-Headers': 'authorization,content-type,idempotency-key,if-match,if-none-match',
        },
      });
      expect(preflight.status).toBe(204);
      expect(String(preflight.headers['access-control-allow-methods']).split(/,\s*/)).toEqual(expect.arrayContaining(['GET', 'POST', 'PATCH', 'DELETE']));
      expect(String(preflight.headers['access-control-allow-headers']).toLowerCase().split(/,\s*/)).toEqual(
        expect.arrayContaining(['authorization', 'content-type', 'idempotency-key', 'if-match', 'if-none-match']),
      );
    });

    it('gives an origin that is not listed no CORS headers', async () => {
      const response = await api.get('/v1/pets', { Origin: 'https://evil.example' });
      expect(response.status).toBe(200);
      expect(response.headers['access-control-allow-origin']).toBeUndefined();
      const preflight = await api.request({
        method: 'OPTIONS',
        url: '/v1/pets',
        headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' },
      });
      expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    });
  });
});
