import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { FLOOR_PARTS, type FloorPart } from '../bench/floor/parts';
import { describeOnStore } from './support/describe-store';
import { freePort } from './support/ports';
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
  // A new pet's address, whose id differs between the two servers' creates.
  location: /^<origin>\/v1\/pets\/\d+$/,
  'x-ratelimit-limit': /^\d+$/,
  'x-ratelimit-remaining': /^\d+$/,
  'x-ratelimit-reset': /^\d+$/,
  'ratelimit-policy': /^"minute";q=\d+;w=60, "day";q=\d+;w=86400(, "answers";q=\d+;w=60)?$/,
  ratelimit: /^"minute";r=\d+;t=\d+, "day";r=\d+;t=\d+(, "answers";r=\d+;t=\d+)?$/,
};

/** Create bodies every server must refuse with 400 and `validation_failed`, each named for what is wrong. */
const INVALID_PETS: ReadonlyArray<readonly [string, unknown]> = [
  ['an unknown field', { name: 'Rex', categoryId: 3, colour: 'brown' }],
  ['no name', { categoryId: 3 }],
  ['an empty name', { name: '', categoryId: 3 }],
  ['a name of white space only', { name: ' \t ', categoryId: 3 }],
  ['a name that is not a string', { name: 7, categoryId: 3 }],
  ['a name of 256 code points in 256 UTF-16 units', { name: 'a'.repeat(256), categoryId: 3 }],
  ['a name of 256 code points, half of them variation selectors', { name: '\u2764\uFE0F'.repeat(128), categoryId: 3 }],
  ['no categoryId', { name: 'Rex' }],
  ['categoryId 0', { name: 'Rex', categoryId: 0 }],
  ['a fractional categoryId', { name: 'Rex', categoryId: 1.5 }],
  ['categoryId as a string', { name: 'Rex', categoryId: '3' }],
  ['categoryId 2^53', { name: 'Rex', categoryId: 2 ** 53 }],
  ['an unknown status', { name: 'Rex', categoryId: 3, status: 'lost' }],
  ['a null status', { name: 'Rex', categoryId: 3, status: null }],
  ['an array', [{ name: 'Rex', categoryId: 3 }]],
  ['null', null],
  ['a string', 'Rex'],
];

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: unknown;
}

/** A GET, or with a body (any JSON value), a POST; without `apiKey`, no Authorization header. The body is undefined when there is none, as on a 304. */
async function call(origin: string, path: string, apiKey: string | undefined, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<Answer> {
  const posted = body !== undefined;
  const response = await fetch(`${origin}${path}`, {
    method: posted ? 'POST' : 'GET',
    headers: { ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}), ...(posted ? { 'content-type': 'application/json' } : {}), ...extraHeaders },
    body: posted ? JSON.stringify(body) : undefined,
  });
  const headers: Record<string, string> = {};
  // Links name the server's own port; the rest of the link must match.
  response.headers.forEach((value, name) => (headers[name] = value.replace(origin, '<origin>')));
  const text = await response.text();
  return { status: response.status, headers, body: text ? JSON.parse(text) : undefined };
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

/** bench/baseline/server.ts, or with `floorParts` bench/floor/server.ts running with those parts. */
async function startBenchServer(databaseUrl: string, apiKey: string, floorParts?: readonly FloorPart[]): Promise<{ origin: string; child: ChildProcess }> {
  const port = await freePort();
  const script = floorParts === undefined ? 'bench/baseline/server.ts' : 'bench/floor/server.ts';
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', script], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}/v1`,
      DATABASE_URL: databaseUrl,
      BENCH_API_KEY: apiKey,
      FLOOR_PARTS: floorParts?.join(','),
    },
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
    const port = await freePort();
    service = `http://127.0.0.1:${port}`;
    testApp = await createTestApp({ env: { PUBLIC_BASE_URL: `${service}/v1` } });
    await testApp.app.listen(port, '127.0.0.1');
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

  it.each(INVALID_PETS)('on create with %s: 400 and the Error body with validation_failed from both', async (_what, body) => {
    const refused = { status: 400, body: { code: 'validation_failed', message: expect.any(String), status: 400 } };
    expect(await call(service, '/v1/pets', testApp.apiKey, body)).toMatchObject(refused);
    expect(await call(baseline.origin, '/v1/pets', testApp.apiKey, body)).toMatchObject(refused);
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
 * baseline's own work inside NestJS, with TypeORM's query API,
 * @nestjs/throttler's guard, a ValidationPipe for the create's body and the
 * list's query, and interceptors around the routes when named. It is a floor
 * only while it answers what the baseline answers; with the throttler, the
 * rate-limit headers are the library's own, and with the pipe, the message of
 * a refused body is class-validator's.
 */
describeOnStore('the library floor answers as the baseline does', () => {
  type Floor = 'nest' | 'validation' | 'interceptors' | 'card';
  /**
   * The floors started beside the baseline: NestJS alone, each part that
   * changes how a request is checked or answered on its own, and every part,
   * as `--floor card` runs them.
   */
  const FLOORS: Record<Floor, readonly FloorPart[]> = {
    nest: [],
    validation: ['validation'],
    interceptors: ['interceptors'],
    card: FLOOR_PARTS,
  };
  const FLOOR_NAMES = Object.keys(FLOORS) as Floor[];

  let testApp: TestApp;
  let baseline: { origin: string; child: ChildProcess };
  const floors = {} as Record<Floor, { origin: string; child: ChildProcess }>;

  beforeAll(async () => {
    testApp = await createTestApp();
    for (let i = 1; i <= 25; i++) await testApp.client.post('/v1/pets', { name: `Pet ${i}`, categoryId: i, status: 'available' });
    const url = testApp.database.url;
    const started = await Promise.all([startBenchServer(url, testApp.apiKey), ...FLOOR_NAMES.map((floor) => startBenchServer(url, testApp.apiKey, FLOORS[floor]))]);
    baseline = started[0];
    FLOOR_NAMES.forEach((floor, i) => (floors[floor] = started[i + 1]));
  });

  afterAll(async () => {
    for (const server of [baseline, ...Object.values(floors)]) server?.child.kill();
    await testApp?.close();
  });

  const without = (pattern: RegExp, answer: Answer): Answer => ({
    ...answer,
    headers: Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !pattern.test(name))),
  });

  /** The baseline's answer from a floor: the same body and header lines, but for the rate-limit headers where the throttler writes its own. */
  function expectBaselineAnswer(floor: Floor, fromFloor: Answer, fromBaseline: Answer): void {
    expect(fromFloor.body).toEqual(fromBaseline.body);
    const comparable = (answer: Answer) => (FLOORS[floor].includes('throttler') ? without(/ratelimit/, answer) : answer);
    expectSameAnswer(comparable(fromFloor), comparable(fromBaseline));
  }

  const refused = (status: number, code: string) => ({ status, body: { code, message: expect.any(String), status } });
  const invalid = refused(400, 'validation_failed');
  /** Pets the spec seeded, by id. */
  const seeded = (from: number, to = from) =>
    Array.from({ length: to - from + 1 }, (_, i) => ({ id: from + i, name: `Pet ${from + i}`, categoryId: from + i, status: 'available' }));
  const nextLink = expect.stringMatching(/^<<origin>\/v1\/pets\?[^>]+>; rel="next"$/);

  it.each([
    ['a first page', '/v1/pets?limit=20', { status: 200, body: seeded(1, 20), headers: { link: nextLink } }],
    ['a page of one status', '/v1/pets?limit=5&status=available', { status: 200, body: seeded(1, 5), headers: { link: nextLink } }],
    ['the default limit', '/v1/pets', { status: 200, body: seeded(1, 20), headers: { link: nextLink } }],
    ['a limit of 0', '/v1/pets?limit=0', invalid],
    ['a limit of 101', '/v1/pets?limit=101', invalid],
    ['a limit in words', '/v1/pets?limit=ten', invalid],
    ['a limit given twice', '/v1/pets?limit=5&limit=6', invalid],
    ['a malformed cursor', '/v1/pets?limit=5&cursor=not-a-cursor', invalid],
    ['a cursor of another format', `/v1/pets?cursor=${Buffer.from('p2.5').toString('base64url')}`, invalid],
    [
      'one pet, deprecated',
      '/v1/pets/7',
      {
        status: 200,
        body: seeded(7)[0],
        headers: { deprecation: expect.stringMatching(/^@\d+$/), sunset: 'Thu, 05 Dec 2030 00:00:00 GMT', link: '<<origin>/v1/pets>; rel="successor-version"' },
      },
    ],
    ['a pet that does not exist', '/v1/pets/999999', refused(404, 'not_found')],
    ['a petId that is not a number', '/v1/pets/seven', invalid],
    ['petId 0', '/v1/pets/0', invalid],
  ])("on GET for %s (%s): the baseline's answer from every floor", async (_what, path, expected) => {
    const fromBaseline = await call(baseline.origin, path, testApp.apiKey);
    expect(fromBaseline).toMatchObject(expected);
    for (const floor of FLOOR_NAMES) expectBaselineAnswer(floor, await call(floors[floor].origin, path, testApp.apiKey), fromBaseline);
  });

  it("with the throttler: the library's rate-limit headers in place of the baseline's", async () => {
    const fromCard = await call(floors.card.origin, '/v1/pets/7', testApp.apiKey);
    expect(fromCard.headers).toMatchObject({ 'x-ratelimit-limit-minute': '100000000', 'x-ratelimit-remaining-minute': expect.stringMatching(/^\d+$/) });
    expect(fromCard.headers).not.toHaveProperty('ratelimit');
  });

  it('on the page a link names: the same pets from the cursor, and the same link on', async () => {
    const first = await call(baseline.origin, '/v1/pets?limit=5&status=available', testApp.apiKey);
    const next = /^<<origin>(\/v1\/pets\?[^>]+)>/.exec(first.headers.link)![1];
    const fromBaseline = await call(baseline.origin, next, testApp.apiKey);
    expect(fromBaseline).toMatchObject({ status: 200, body: seeded(6, 10), headers: { link: nextLink } });
    for (const floor of FLOOR_NAMES) {
      expect((await call(floors[floor].origin, '/v1/pets?limit=5&status=available', testApp.apiKey)).headers.link).toBe(first.headers.link);
      expectBaselineAnswer(floor, await call(floors[floor].origin, next, testApp.apiKey), fromBaseline);
    }
  });

  it.each([['/v1/pets?limit=20'], ['/v1/pets/7']])('on GET %s with If-None-Match: 304 without a body for its own ETag, 200 for another, from every floor', async (path) => {
    const conditional = async (origin: string) => {
      const { etag } = (await call(origin, path, testApp.apiKey)).headers;
      return {
        held: await call(origin, path, testApp.apiKey, undefined, { 'if-none-match': etag }),
        stale: await call(origin, path, testApp.apiKey, undefined, { 'if-none-match': '"not-the-tag"' }),
        etag,
      };
    };
    const fromBaseline = await conditional(baseline.origin);
    expect(fromBaseline.held).toMatchObject({ status: 304, body: undefined, headers: { etag: fromBaseline.etag } });
    expect(fromBaseline.stale).toMatchObject({ status: 200, body: expect.anything(), headers: { etag: fromBaseline.etag } });
    for (const floor of FLOOR_NAMES) {
      const fromFloor = await conditional(floors[floor].origin);
      expect(fromFloor.held.headers.etag).toBe(fromFloor.etag);
      expectBaselineAnswer(floor, fromFloor.held, fromBaseline.held);
      expectBaselineAnswer(floor, fromFloor.stale, fromBaseline.stale);
    }
  });

  it('on create: the same 201 from every floor but for the new id', async () => {
    const pet = { name: 'Rex', categoryId: 3, status: 'pending' };
    const fromBaseline = await call(baseline.origin, '/v1/pets', testApp.apiKey, pet);
    expect(fromBaseline).toMatchObject({ status: 201, body: { ...pet, id: expect.any(Number) } });
    for (const [i, floor] of FLOOR_NAMES.entries()) {
      const fromFloor = await call(floors[floor].origin, '/v1/pets', testApp.apiKey, pet);
      expectBaselineAnswer(floor, fromFloor, { ...fromBaseline, body: { ...pet, id: (fromBaseline.body as { id: number }).id + i + 1 } });
    }
  });

  it('on create at the limits of each field, status left out: the same 201 from every floor but for the new id', async () => {
    // 255 code points in 510 UTF-16 units, the largest id, and the default status.
    const pet = { name: '\u{1F408}'.repeat(255), categoryId: Number.MAX_SAFE_INTEGER };
    const fromBaseline = await call(baseline.origin, '/v1/pets', testApp.apiKey, pet);
    expect(fromBaseline).toMatchObject({ status: 201, body: { ...pet, status: 'available', id: expect.any(Number) } });
    for (const [i, floor] of FLOOR_NAMES.entries()) {
      const fromFloor = await call(floors[floor].origin, '/v1/pets', testApp.apiKey, pet);
      expectBaselineAnswer(floor, fromFloor, { ...fromBaseline, body: { ...(fromBaseline.body as object), id: (fromBaseline.body as { id: number }).id + i + 1 } });
    }
  });

  it.each(INVALID_PETS)('on create with %s: the same 400 from every floor, from the hand checks or, with validation, from the pipe', async (_what, body) => {
    const fromBaseline = await call(baseline.origin, '/v1/pets', testApp.apiKey, body);
    expect(fromBaseline).toMatchObject(invalid);
    // The pipe's message is class-validator's, so the message and the body's length may differ.
    const butMessage = (answer: Answer) => ({ ...without(/content-length/, answer), body: { ...(answer.body as object), message: '' } });
    for (const floor of FLOOR_NAMES) {
      const fromFloor = await call(floors[floor].origin, '/v1/pets', testApp.apiKey, body);
      expect(fromFloor).toMatchObject(invalid);
      if (FLOORS[floor].includes('validation')) expectBaselineAnswer(floor, butMessage(fromFloor), butMessage(fromBaseline));
      else expectBaselineAnswer(floor, fromFloor, fromBaseline);
    }
  });

  it("on creates with an Idempotency-Key: the pet and its record in one TypeORM transaction, read back as the baseline's, replayed, refused with another body", async () => {
    const pet = { name: 'Once', categoryId: 3, status: 'pending' };
    const keyed = (key: string) => ({ 'idempotency-key': `floor-${key}-${Date.now()}` });
    const first = keyed('first');
    const fromBaseline = await call(baseline.origin, '/v1/pets', testApp.apiKey, pet, first);
    const replayedByBaseline = await call(baseline.origin, '/v1/pets', testApp.apiKey, pet, first);
    expect(replayedByBaseline).toMatchObject({ status: 201, body: fromBaseline.body, headers: { 'idempotent-replayed': 'true' } });
    // One store and one bench key: the floor replays what the baseline stored.
    expectBaselineAnswer('card', await call(floors.card.origin, '/v1/pets', testApp.apiKey, pet, first), replayedByBaseline);
    const fresh = keyed('fresh');
    const fromFloor = await call(floors.card.origin, '/v1/pets', testApp.apiKey, pet, fresh);
    expectBaselineAnswer('card', fromFloor, { ...fromBaseline, body: { ...pet, id: expect.any(Number) } });
    // The replay's undone insert may have used up an id (InnoDB's auto-increment does not give ids back).
    expect((fromFloor.body as { id: number }).id).toBeGreaterThan((fromBaseline.body as { id: number }).id);
    expectBaselineAnswer('card', await call(floors.card.origin, '/v1/pets', testApp.apiKey, pet, fresh), { ...replayedByBaseline, body: fromFloor.body });
    const otherBody = await call(floors.card.origin, '/v1/pets', testApp.apiKey, { ...pet, name: 'Twice' }, fresh);
    expect(otherBody).toMatchObject(refused(422, 'idempotency_key_reused'));
  });

  it('without a key: the same 401 from every floor', async () => {
    const fromBaseline = await call(baseline.origin, '/v1/pets/7', undefined);
    expect(fromBaseline).toMatchObject({ ...refused(401, 'unauthorized'), headers: { 'www-authenticate': 'Bearer realm="animal-store"' } });
    for (const floor of FLOOR_NAMES) expectBaselineAnswer(floor, await call(floors[floor].origin, '/v1/pets/7', undefined), fromBaseline);
  });
});

describe('the library floor', () => {
  let child: ChildProcess | undefined;
  // A floor that does start is stopped here, so a failing spec leaves no server behind.
  afterEach(() => child?.kill());

  it("stops at start-up on a part it does not know, such as the bench's shorthand 'card', rather than measure a floor without it", async () => {
    child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', 'bench/floor/server.ts'], {
      cwd: ROOT,
      env: { ...process.env, PORT: String(await freePort()), HOST: '127.0.0.1', DATABASE_URL: 'sqlite::memory:', FLOOR_PARTS: 'throttler,card' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let printed = '';
    child.stderr?.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child?.once('exit', resolve));
    expect({ code, printed: printed.trim() }).toEqual({
      code: 1,
      printed: "FLOOR_PARTS names card; the floor's parts are typeorm, throttler, validation, interceptors (the bench's 'card' and 'nest' are all and none)",
    });
  });
});
