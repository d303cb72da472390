import type { AddressInfo } from 'node:net';
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

  describe("framing Node's HTTP parser refuses", () => {
    const json = 'Content-Type: application/json\r\n';
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

    it('answers nothing to a broken request pipelined behind one still being answered, and closes', async () => {
      const exchange = await sendRaw(port, 'GET /v1/pets HTTP/1.1\r\nHost: x\r\n\r\nGARBAGE\r\n\r\n', { untilClose: true });
      expect(exchange.closed).toBe(true);
      // Had an answer come, the client would have read it as the first request's.
      expect(exchange.response === undefined || exchange.response.status === 401).toBe(true);
    });

    it('still serves an HTTP/1.0 request without Host', async () => {
      const exchange = await sendRaw(port, 'GET /v1/pets HTTP/1.0\r\n\r\n', { untilClose: true });
      expectErrorBody(exchange.response!, 401, 'unauthorized');
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
