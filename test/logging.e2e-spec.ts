import { DataSource } from 'typeorm';
import { PrimaryReads } from '../src/database/database-reads';
import { LOG_DESTINATION } from '../src/ops/logging';
import { ApiClient, expectErrorBody } from './support/api-client';
import { describeOnStore } from './support/describe-store';
import { createTestApp, TestApp } from './support/test-app';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface LogLine {
  level: string;
  msg: string;
  requestId?: string;
  method?: string;
  route?: string;
  status?: number;
  durationMs?: number;
  context?: string;
}

describeOnStore('request ids and logs', () => {
  let testApp: TestApp;
  let api: ApiClient;
  const written: string[] = [];
  const lines = (): LogLine[] => written.join('').split('\n').filter(Boolean).map((line) => JSON.parse(line) as LogLine);
  const requestLines = (requestId: string) => lines().filter((line) => line.requestId === requestId && line.msg.startsWith('request '));

  beforeAll(async () => {
    testApp = await createTestApp({
      // The most verbose level: nothing secret may appear even there.
      env: { LOG_LEVEL: 'trace' },
      overrides: [{ provide: LOG_DESTINATION, useValue: { write: (chunk: string) => written.push(chunk) } }],
    });
    api = testApp.client;
  });
  afterAll(() => testApp?.close());

  it('echoes a sane X-Request-Id and logs one line for the request with method, route, status, duration and that id', async () => {
    const response = await api.get('/v1/pets/424242', { 'X-Request-Id': 'trace-0001.a' });
    expectErrorBody(response, 404, 'not_found');
    expect(response.headers['x-request-id']).toBe('trace-0001.a');
    const [line, ...others] = requestLines('trace-0001.a');
    expect(others).toEqual([]);
    expect(line).toMatchObject({ level: 'info', method: 'GET', route: '/v1/pets/:petId', status: 404, requestId: 'trace-0001.a' });
    expect(line.durationMs).toEqual(expect.any(Number));
  });

  it.each([
    ['no X-Request-Id', {}],
    ['an X-Request-Id with spaces', { 'X-Request-Id': 'forged id' }],
    ['an X-Request-Id too long', { 'X-Request-Id': 'x'.repeat(200) }],
  ])('generates a new id for a request with %s', async (_, headers: Record<string, string>) => {
    const response = await api.get('/v1/pets', headers);
    expect(response.status).toBe(200);
    const id = String(response.headers['x-request-id']);
    expect(id).toMatch(UUID);
    expect(requestLines(id)).toHaveLength(1);
  });

  it('returns the request id on errors answered before any controller runs', async () => {
    const unknown = await api.get('/no/such/path', { 'X-Request-Id': 'unknown-path' });
    expectErrorBody(unknown, 404, 'not_found');
    expect(unknown.headers['x-request-id']).toBe('unknown-path');
    expect(requestLines('unknown-path')[0]).toMatchObject({ route: 'unmatched', status: 404 });

    const wrongType = await api.request({ method: 'POST', url: '/v1/pets', payload: 'name=Rex', headers: { 'content-type': 'text/plain' } });
    expectErrorBody(wrongType, 415, 'unsupported_media_type');
    expect(String(wrongType.headers['x-request-id'])).toMatch(UUID);

    const badJson = await api.request({ method: 'POST', url: '/v1/pets', payload: '{"name":', headers: { 'content-type': 'application/json' } });
    expectErrorBody(badJson, 400, 'validation_failed');
    expect(String(badJson.headers['x-request-id'])).toMatch(UUID);
  });

  it('never logs an Authorization header, a cookie or a body', async () => {
    const secrets = [testApp.apiKey, 'S3cretCookieValue', 'S3cretBodyName'];
    const response = await api.post('/v1/pets', { name: secrets[2], categoryId: 7 }, {
      Authorization: `Bearer ${secrets[0]}`,
      Cookie: `session=${secrets[1]}`,
      'X-Request-Id': 'with-secrets',
    });
    expect(response.status).toBe(201);
    expect(requestLines('with-secrets')[0]).toMatchObject({ method: 'POST', route: '/v1/pets', status: 201 });
    const everything = written.join('');
    for (const secret of secrets) expect(everything).not.toContain(secret);
  });

  it('logs the stack of a 500 once, as one JSON line, and the request line at level error', async () => {
    // On MySQL the reads have a pool of their own: both go, as the store would.
    const reads = testApp.app.get(PrimaryReads).source;
    await testApp.app.get(DataSource).destroy();
    if (reads.isInitialized) await reads.destroy();
    const response = await api.get('/v1/pets', { 'X-Request-Id': 'broken-store' });
    expectErrorBody(response, 500, 'internal_error');
    expect(response.headers['x-request-id']).toBe('broken-store');
    const stackLines = written.filter((line) => line.includes('\\n    at '));
    expect(stackLines).toHaveLength(1);
    expect(JSON.parse(stackLines[0])).toMatchObject({ level: 'error', context: 'Errors', requestId: 'broken-store' });
    expect(requestLines('broken-store')).toEqual([expect.objectContaining({ level: 'error', status: 500, route: '/v1/pets' })]);
  });
});
