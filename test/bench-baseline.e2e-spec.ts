import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { describeOnStore } from './support/describe-store';
import { freePort } from './support/service-process';
import { createTestApp, TestApp } from './support/test-app';

/**
 * `npm run bench` judges the service by its ratio to bench/baseline/server.ts,
 * which is fair only while the baseline answers what the service answers. Both
 * run here on one database and one key, and get the bench's four requests; each
 * pair must match in status, body and header lines. Only values that differ by
 * nature are compared by form: request ids, dates, the counters and limits of
 * two different rate limiters, the port in links (and so the ETag), and the id of a new pet.
 */
const ROOT = join(__dirname, '..');

/** Headers whose values differ between two servers by nature, with the form both must have. */
const BY_FORM: Record<string, RegExp> = {
  'x-request-id': /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
  date: /GMT$/,
  // A digest of the body and the Link, whose origin names each server's own port.
  etag: /^"[A-Za-z0-9_-]{22}"$/,
  'x-ratelimit-limit': /^\d+$/,
  'x-ratelimit-remaining': /^\d+$/,
  'x-ratelimit-reset': /^\d+$/,
  'ratelimit-policy': /^"minute";q=\d+;w=60, "day";q=\d+;w=86400$/,
  ratelimit: /^"minute";r=\d+;t=\d+, "day";r=\d+;t=\d+$/,
};

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: unknown;
}

async function call(origin: string, path: string, apiKey: string, body?: object, extraHeaders: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(`${origin}${path}`, {
    method: body ? 'POST' : 'GET',
    headers: { authorization: `Bearer ${apiKey}`, ...(body ? { 'content-type': 'application/json' } : {}), ...extraHeaders },
    body: body && JSON.stringify(body),
  });
  const headers: Record<string, string> = {};
  // Links name the server's own port; the rest of the link must match.
  response.headers.forEach((value, name) => (headers[name] = value.replace(origin, '<origin>')));
  return { status: response.status, headers, body: await response.json() };
}

function expectSameAnswer(service: Answer, baseline: Answer): void {
  expect(baseline.status).toBe(service.status);
  expect(Object.keys(baseline.headers).sort()).toEqual(Object.keys(service.headers).sort());
  for (const [name, value] of Object.entries(service.headers)) {
    if (BY_FORM[name]) {
      expect(value).toMatch(BY_FORM[name]);
      expect(baseline.headers[name]).toMatch(BY_FORM[name]);
    } else {
      expect({ [name]: baseline.headers[name] }).toEqual({ [name]: value });
    }
  }
}

/** bench/baseline/server.ts, or with `floorLibraries` bench/floor/server.ts running with those libraries. */
async function startBenchServer(databaseUrl: string, apiKey: string, floorLibraries?: string): Promise<{ origin: string; child: ChildProcess }> {
  const port = await freePort();
  const script = floorLibraries === undefined ? 'bench/baseline/server.ts' : 'bench/floor/server.ts';
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', script], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: databaseUrl, BENCH_API_KEY: apiKey, FLOOR_LIBRARIES: floorLibraries },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let printed = '';
  child.stderr?.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const origin = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
    if (child.exitCode !== null) break;
    if (await fetch(`${origin}/healthz`).then((r) => r.ok, () => false)) return { origin, child };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill();
  throw new Error(`${script} did not answer:\n${printed}`);
}

describeOnStore('the bench baseline answers as the service does', () => {
  let testApp: TestApp;
  let baseline: { origin: string; child: ChildProcess };
  let service: string;

  beforeAll(async () => {
    testApp = await createTestApp();
    await testApp.app.listen(0, '127.0.0.1');
    const { port } = testApp.app.getHttpServer().address() as { port: number };
    service = `http://127.0.0.1:${port}`;
    for (let i = 1; i <= 45; i++) {
      await testApp.client.post('/v1/pets', { name: `Pet ${i}`, categoryId: i, status: i % 3 ? 'available' : 'sold' });
    }
    baseline = await startBenchServer(testApp.database.url, testApp.apiKey);
  });

  afterAll(async () => {
    baseline?.child.kill();
    await testApp?.close();
  });

  it('on get one pet: the same pet, deprecation headers and security headers', async () => {
    const fromService = await call(service, '/v1/pets/7', testApp.apiKey);
    expect(fromService.headers).toMatchObject({ deprecation: expect.any(String), 'x-frame-options': 'DENY' });
    expectSameAnswer(fromService, await call(baseline.origin, '/v1/pets/7', testApp.apiKey));
  });

  it('on the first page: the same pets and the same link to the next page', async () => {
    const fromService = await call(service, '/v1/pets?limit=20', testApp.apiKey);
    expect(fromService.headers.link).toContain('rel="next"');
    expectSameAnswer(fromService, await call(baseline.origin, '/v1/pets?limit=20', testApp.apiKey));
  });

  it('on a filtered page at a cursor: the same pets and link', async () => {
    const first = await call(service, '/v1/pets?limit=5&status=sold', testApp.apiKey);
    const next = /<<origin>(\/v1\/pets\?[^>]+)>/.exec(first.headers.link)![1];
    const fromService = await call(service, next, testApp.apiKey);
    expect(fromService.body).toHaveLength(5);
    expectSameAnswer(fromService, await call(baseline.origin, next, testApp.apiKey));
  });

  it('on create: the same answer but for the new id', async () => {
    const pet = { name: 'Rex', categoryId: 3 };
    const fromService = await call(service, '/v1/pets', testApp.apiKey, pet);
    const fromBaseline = await call(baseline.origin, '/v1/pets', testApp.apiKey, pet);
    expect(fromBaseline.body).toEqual({ ...(fromService.body as object), id: (fromService.body as { id: number }).id + 1 });
    expectSameAnswer(fromService, fromBaseline);
  });

  it('on creates with an Idempotency-Key: the same first answer, the same replay, and 422 for the key with another body', async () => {
    const pet = { name: 'Once', categoryId: 4 };
    const keyed = { 'idempotency-key': `bench-${Date.now()}` };
    const answers = async (origin: string) => ({
      first: await call(origin, '/v1/pets', testApp.apiKey, pet, keyed),
      retry: await call(origin, '/v1/pets', testApp.apiKey, pet, keyed),
      otherBody: await call(origin, '/v1/pets', testApp.apiKey, { ...pet, name: 'Twice' }, keyed),
    });
    const fromService = await answers(service);
    const fromBaseline = await answers(baseline.origin);
    expectSameAnswer(fromService.first, fromBaseline.first);
    expect(fromBaseline.retry.body).toEqual(fromBaseline.first.body);
    expect(fromBaseline.retry.headers['idempotent-replayed']).toBe('true');
    expectSameAnswer(fromService.retry, fromBaseline.retry);
    expect([fromService.otherBody.status, fromBaseline.otherBody.status]).toEqual([422, 422]);
    expect((fromBaseline.otherBody.body as { code: string }).code).toBe((fromService.otherBody.body as { code: string }).code);
  });
});

/**
 * `npm run bench -- --floor` puts bench/floor in the service's place: the
 * baseline's own work inside NestJS, with TypeORM's query API and
 * @nestjs/throttler's guard when named. It is a floor only while it answers
 * what the baseline answers; with the throttler, the rate-limit headers are
 * the library's own.
 */
describeOnStore('the library floor answers as the baseline does', () => {
  let testApp: TestApp;
  const servers: Record<string, { origin: string; child: ChildProcess }> = {};

  beforeAll(async () => {
    testApp = await createTestApp();
    for (let i = 1; i <= 25; i++) await testApp.client.post('/v1/pets', { name: `Pet ${i}`, categoryId: i, status: 'available' });
    const url = testApp.database.url;
    [servers.baseline, servers.nest, servers.libraries] = await Promise.all([
      startBenchServer(url, testApp.apiKey),
      startBenchServer(url, testApp.apiKey, ''),
      startBenchServer(url, testApp.apiKey, 'typeorm,throttler'),
    ]);
  });

  afterAll(async () => {
    for (const server of Object.values(servers)) server.child.kill();
    await testApp?.close();
  });

  const withoutRateLimits = (answer: Answer): Answer => ({
    ...answer,
    headers: Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !/ratelimit/.test(name))),
  });

  it.each([['/v1/pets/7'], ['/v1/pets?limit=20'], ['/v1/pets?limit=5&status=available']])('on GET %s: NestJS alone the same, with the libraries the same but for the rate-limit headers', async (path) => {
    const fromBaseline = await call(servers.baseline.origin, path, testApp.apiKey);
    expect(fromBaseline.status).toBe(200);
    expectSameAnswer(await call(servers.nest.origin, path, testApp.apiKey), fromBaseline);
    const fromLibraries = await call(servers.libraries.origin, path, testApp.apiKey);
    expect(fromLibraries.headers['x-ratelimit-remaining-minute']).toMatch(/^\d+$/);
    expectSameAnswer(withoutRateLimits(fromLibraries), withoutRateLimits(fromBaseline));
  });

  it('on create: a pet stored through TypeORM, answered as the baseline answers', async () => {
    const pet = { name: 'Rex', categoryId: 3, status: 'pending' };
    const fromBaseline = await call(servers.baseline.origin, '/v1/pets', testApp.apiKey, pet);
    const fromLibraries = await call(servers.libraries.origin, '/v1/pets', testApp.apiKey, pet);
    expect(fromLibraries.body).toEqual({ ...pet, id: (fromBaseline.body as { id: number }).id + 1 });
    expectSameAnswer(withoutRateLimits(fromLibraries), withoutRateLimits(fromBaseline));
  });

  it("on creates with an Idempotency-Key: the pet and its record in one TypeORM transaction, read back as the baseline's", async () => {
    const pet = { name: 'Once', categoryId: 3, status: 'pending' };
    const keyed = (key: string) => ({ 'idempotency-key': `floor-${key}-${Date.now()}` });
    const first = keyed('first');
    const fromBaseline = await call(servers.baseline.origin, '/v1/pets', testApp.apiKey, pet, first);
    // One store and one bench key: the floor replays what the baseline stored.
    const replayed = await call(servers.libraries.origin, '/v1/pets', testApp.apiKey, pet, first);
    expect({ status: replayed.status, body: replayed.body, replayed: replayed.headers['idempotent-replayed'] }).toEqual({ status: 201, body: fromBaseline.body, replayed: 'true' });
    const fresh = await call(servers.libraries.origin, '/v1/pets', testApp.apiKey, pet, keyed('fresh'));
    // The replay's undone insert may have used up an id (InnoDB's auto-increment does not give ids back).
    expect(fresh.body).toEqual({ ...pet, id: expect.any(Number) });
    expect((fresh.body as { id: number }).id).toBeGreaterThan((fromBaseline.body as { id: number }).id);
    expectSameAnswer(withoutRateLimits(fresh), withoutRateLimits(fromBaseline));
  });

  it('without a key: 401 from the floor too', async () => {
    const response = await fetch(`${servers.libraries.origin}/v1/pets/7`);
    expect(response.status).toBe(401);
  });
});
