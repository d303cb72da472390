import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { ApiClient, expectErrorBody } from './support/api-client';
import { describeOnStore } from './support/describe-store';
import { sendRaw } from './support/raw-http';
import { createTestApp, TestApp } from './support/test-app';

describeOnStore('requests refused before any route runs', () => {
  let testApp: TestApp;
  let api: ApiClient;
  let port: number;

  beforeAll(async () => {
    testApp = await createTestApp();
    api = testApp.client;
    await testApp.app.listen(0, '127.0.0.1');
    port = (testApp.app.getHttpServer().address() as AddressInfo).port;
  });
  afterAll(() => testApp?.close());

  const countPets = async (): Promise<number> => Number((await testApp.app.get(DataSource).query('SELECT COUNT(*) AS n FROM pets'))[0].n);

  const auth = () => `Authorization: Bearer ${testApp.apiKey}\r\n`;
  const json = 'Content-Type: application/json\r\n';

  describe("framing Node's HTTP parser refuses", () => {
    it.each([
      ['two Content-Length headers', `POST /v1/pets HTTP/1.1\r\nHost: x\r\n${json}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}`, 400, 'bad_request'],
      ['Content-Length with chunked framing', `POST /v1/pets HTTP/1.1\r\nHost: x\r\n${json}Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`, 400, 'bad_request'],
      ['a NUL in the path', 'GET /v1/pe\0ts HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'bad_request'],
      ['an invalid header name', 'GET /v1/pets HTTP/1.1\r\nHost: x\r\nBad Name: y\r\n\r\n', 400, 'bad_request'],
      ['a request line that is not HTTP', 'HELLO\r\n\r\n', 400, 'bad_request'],
      ['broken chunked framing', `POST /v1/pets HTTP/1.1\r\nHost: x\r\n${json}Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`, 400, 'bad_request'],
      ['headers over the size limit', `GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Pad: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'request_header_fields_too_large'],
      ['an HTTP/1.1 request without Host', 'GET /v1/pets HTTP/1.1\r\n\r\n', 400, 'bad_request'],
    ])('answers %s with the Error body and closes the connection', async (_case, bytes, status, code) => {
      const exchange = await sendRaw(port, bytes, { untilClose: true });
      expect({ closed: exchange.closed, answered: exchange.response !== undefined }).toEqual({ closed: true, answered: true });
      expectErrorBody(exchange.response!, status, code);
    });

    it('answers a complete request in full before the 400 of a broken one pipelined behind it, then closes', async () => {
      const exchange = await sendRaw(port, `GET /v1/pets?limit=1 HTTP/1.1\r\nHost: x\r\n${auth()}\r\nGARBAGE\r\n\r\n`, { untilClose: true });
      expect(exchange.closed).toBe(true);
      expect(exchange.responses.map((response) => response.status)).toEqual([200, 400]);
      expect(Array.isArray(exchange.responses[0].body)).toBe(true);
      expectErrorBody(exchange.responses[1], 400, 'bad_request');
    });

    it('answers every complete request pipelined before a broken one, in order, a create included', async () => {
      const name = `pipelined-${Date.now()}`;
      const create = JSON.stringify({ name, categoryId: 3 });
      const bytes =
        `POST /v1/pets HTTP/1.1\r\nHost: x\r\n${auth()}${json}Content-Length: ${create.length}\r\n\r\n${create}` +
        `GET /v1/pets?limit=1 HTTP/1.1\r\nHost: x\r\n${auth()}\r\n` +
        'GET /v1/pets HTTP/1.1\r\nHost: x\r\nBad Name: y\r\n\r\n';
      const exchange = await sendRaw(port, bytes, { untilClose: true });
      expect(exchange.closed).toBe(true);
      expect(exchange.responses.map((response) => response.status)).toEqual([201, 200, 400]);
      const created = exchange.responses[0].body as { id: number; name: string };
      expect(created.name).toBe(name);
      expectErrorBody(exchange.responses[2], 400, 'bad_request');
      expect((await api.get(`/v1/pets/${created.id}`)).body).toEqual(created);
    });

    it('still serves an HTTP/1.0 request without Host', async () => {
      const exchange = await sendRaw(port, 'GET /v1/pets HTTP/1.0\r\n\r\n', { untilClose: true });
      expectErrorBody(exchange.response!, 401, 'unauthorized');
    });

    it('guards a request line in absolute form like any other: no key, no pets', async () => {
      const exchange = await sendRaw(port, `GET http://127.0.0.1:${port}/v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`, { untilClose: true });
      expectErrorBody(exchange.response!, 401, 'unauthorized');
      expect(exchange.response!.headers['x-ratelimit-limit']).toBeDefined();
    });
  });

  describe('Expect', () => {
    it.each([
      ['GET /v1/pets with a key', `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\nExpect: 200-ok\r\n\r\n`],
      ['GET /v1/pets without a key', 'GET /v1/pets HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\n\r\n'],
      ['an unknown address', 'GET /nowhere HTTP/1.1\r\nHost: x\r\nExpect: something-else\r\n\r\n'],
      ['the API document', 'GET /docs/openapi.json HTTP/1.1\r\nHost: x\r\nExpect: \r\n\r\n'],
      ['a create whose body waits for the answer', `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\n${'Content-Type: application/json\r\n'}Content-Length: 30\r\nExpect: 100-continue-please\r\n\r\n`],
      ['a create that also expects something else', `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\n${'Content-Type: application/json\r\n'}Content-Length: 30\r\nExpect: 100-continue, x-audit\r\n\r\n`],
    ])('answers any expectation but 100-continue on %s 417 with the Error body, and closes', async (_case, bytes) => {
      const pets = await countPets();
      const exchange = await sendRaw(port, bytes.replace('{key}', testApp.apiKey), { untilClose: true });
      expect(exchange.closed).toBe(true);
      expect(exchange.responses).toHaveLength(1);
      expectErrorBody(exchange.response!, 417, 'expectation_failed');
      // Answered like any other error: request id and security headers included.
      expect(exchange.response!.headers).toMatchObject({ connection: 'close', 'x-request-id': expect.any(String), 'x-content-type-options': 'nosniff' });
      expect(await countPets()).toBe(pets);
    });

    it.each(['100-continue', '100-Continue', ' 100-CONTINUE '])('answers Expect: %s with 100 Continue, then takes the body and creates', async (expectation) => {
      const body = JSON.stringify({ name: 'Rex', categoryId: 3 });
      const head = `POST /v1/pets HTTP/1.1\r\nHost: x\r\n${auth()}${json}Content-Length: ${body.length}\r\nExpect: ${expectation}\r\n\r\n`;
      const exchange = await sendRaw(port, head, { afterContinue: body });
      expect(exchange.responses.map((response) => response.status)).toEqual([100, 201]);
      expect(exchange.response!.body).toMatchObject({ name: 'Rex', categoryId: 3, status: 'available' });
    });
  });

  describe('URLs the router refuses', () => {
    it.each(['/v1/pets/%zz', '/v1/pets/%', '/v1/pets/%E0%A4%A', '/nowhere/%zz'])('answers %s 400 bad_request', async (url) => {
      expectErrorBody(await api.get(url), 400, 'bad_request');
    });

    it('answers a path parameter over the router limit 414 uri_too_long', async () => {
      expectErrorBody(await api.get(`/v1/pets/${'1'.repeat(200)}`), 414, 'uri_too_long');
    });
  });

  describe('the docs page static files', () => {
    it.each([
      '/docs/../package.json',
      '/docs/swagger-ui/../../package.json',
      '/docs/%2e%2e/%2e%2e/package.json',
      '/docs/%2e%2e/package.json',
      '/docs/%2E%2E%2Fpackage.json',
      '/docs/..%2f..%2fpackage.json',
      '/docs/./swagger-ui.css',
      '/docs//swagger-ui.css',
      '/docs/swagger-ui.css/..',
      '/docs/..%5c..%5cpackage.json',
      '/docs/%00',
    ])('answers the traversal %s 404 not_found', async (url) => {
      // Raw, so no client normalizes the dots away before they reach the service.
      const exchange = await sendRaw(port, `GET ${url} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      expectErrorBody(exchange.response!, 404, 'not_found');
    });

    it('still serves the files of its own folder', async () => {
      const response = await new ApiClient(testApp.app).get('/docs/swagger-ui.css');
      expect(response.status).toBe(200);
      expect(String(response.headers['content-type'])).toMatch(/^text\/css/);
    });
  });
});
