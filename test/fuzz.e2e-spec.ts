import fc from 'fast-check';
import type { AddressInfo } from 'node:net';
import { ERROR_STATUSES, isErrorCode } from '../src/errors/http/error-statuses';
import { ApiResponse, collectPages } from './support/api-client';
import { describeOnStore } from './support/describe-store';
import { sendRaw } from './support/raw-http';
import { createTestApp, TestApp } from './support/test-app';

/**
 * Generated requests, in-process and as raw bytes over a socket, against the
 * invariants every client relies on. Reproduce a failure with the seed it
 * prints: FUZZ_SEED=<seed> npx jest --selectProjects e2e-sqlite -- test/fuzz.e2e-spec.ts
 */
const SEED = Number(process.env.FUZZ_SEED ?? 18_2026);
const RUNS = Number(process.env.FUZZ_RUNS ?? 1_000);
const RAW_RUNS = Number(process.env.FUZZ_RAW_RUNS ?? 300);
/** A socket that neither answers nor closes within this long is a hang. */
const HANG_MS = 5_000;

interface PetBody {
  id: number;
  name: string;
  categoryId: number;
  status: string;
}

type Caller = { kind: 'valid'; header: string } | { kind: 'invalid'; header?: string };

interface GeneratedRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  headers: Record<string, string>;
  /** Raw bytes where the body need not be UTF-8. */
  payload?: string | Buffer;
  caller: Caller['kind'];
  /** A body that must never be stored, whatever else the request carries. */
  refused?: boolean;
}

const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength: 40 });
/** Text a query or path can carry, encoded as a client would or with a broken escape left in. */
const urlText = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 30 }).map(encodeURIComponent),
  printable.map(encodeURIComponent),
  fc.constantFrom('%', '%zz', '%E0%A4%A', '%00', '..', '%2e%2e', ''),
);
const decimal = fc.oneof(
  fc.integer({ min: -5, max: 150 }).map(String),
  fc.constantFrom('9007199254740991', '9007199254740993', '1e2', '0x10', ' 1', '+1', '01', '1.0'),
);

function callerArbitrary(apiKey: string): fc.Arbitrary<Caller> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom<Caller>({ kind: 'valid', header: `Bearer ${apiKey}` }, { kind: 'valid', header: `bearer ${apiKey}` }) },
    fc.constantFrom<Caller>(
      { kind: 'invalid' },
      { kind: 'invalid', header: '' },
      { kind: 'invalid', header: 'Bearer' },
      { kind: 'invalid', header: `Bearer ${apiKey}x` },
      { kind: 'invalid', header: `Bearer ${apiKey.slice(0, -1)}` },
      { kind: 'invalid', header: `Basic ${Buffer.from(`x:${apiKey}`).toString('base64')}` },
      { kind: 'invalid', header: `Bearer  ${apiKey} extra` },
    ),
    printable.map((garbage): Caller => ({ kind: 'invalid', header: garbage })),
    printable.map((garbage): Caller => ({ kind: 'invalid', header: `Bearer ${garbage}` })),
  );
}

const petName = fc.oneof(
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 300 }),
  // Any UTF-16 code units, lone surrogates included: those names must be refused, never stored altered.
  fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }),
  fc.constantFrom(' ', '\u{1F408}', 'Rex', 'a\udc00b'),
);
const petFields = fc.record(
  {
    name: fc.oneof({ weight: 4, arbitrary: petName }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) }),
    categoryId: fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 1, max: 50 }) }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) }),
    status: fc.oneof(fc.constantFrom('available', 'pending', 'sold'), fc.jsonValue({ maxDepth: 1 })),
    extra: fc.jsonValue({ maxDepth: 1 }),
  },
  { requiredKeys: [] },
);
const newPet = fc.record(
  { name: petName, categoryId: fc.integer({ min: 1, max: 50 }), status: fc.constantFrom('available', 'pending', 'sold') },
  { requiredKeys: ['name', 'categoryId'] },
);
/** A field every JavaScript object answers to without holding it: refused like any unknown field. */
const memberName = fc.constantFrom('toString', 'constructor', 'valueOf', 'hasOwnProperty', '__proto__', 'prototype');
/** Arrays or objects nested around the bound on depth, and far past it. */
const nesting = fc
  .record({ depth: fc.oneof(fc.integer({ min: 28, max: 36 }), fc.integer({ min: 37, max: 5_000 })), objects: fc.boolean() })
  .map(({ depth, objects }) => (objects ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}` : `${'['.repeat(depth)}${']'.repeat(depth)}`));
/** A create's JSON as bytes with a sequence in its name that is not UTF-8. */
const notUtf8 = fc
  .constantFrom([0xff], [0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xe9], [0xf4, 0x90, 0x80, 0x80])
  .map((bytes) => Buffer.concat([Buffer.from('{"name":"Re'), Buffer.from(bytes), Buffer.from('x","categoryId":1}')]));
/** Bodies no content type or key may get stored: a field no DTO declares, or bytes that are not UTF-8. */
const neverStored = fc.oneof(
  fc.tuple(newPet, memberName).map(([pet, name]) => JSON.stringify(pet).replace(/^\{/, `{${JSON.stringify(name)}:1,`)),
  fc.tuple(newPet, nesting).map(([pet, pad]) => JSON.stringify(pet).replace(/^\{/, `{"pad":${pad},`)),
  notUtf8,
);
const body = fc.oneof(
  { weight: 6, arbitrary: newPet.map((pet) => JSON.stringify(pet)) },
  { weight: 4, arbitrary: petFields.map((fields) => JSON.stringify(fields)) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 60 }) },
  { weight: 1, arbitrary: fc.constantFrom('', '{', '{"name":"Rex","categoryId":1', 'null', '[]', '{"name":"Rex","categoryId":1,"name":"Tom"}') },
);
const contentType = fc.option(
  fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8', 'Application/JSON') },
    { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', 'multipart/form-data') },
    { weight: 1, arbitrary: printable },
  ),
  { freq: 6 },
);

let keySequence = 0;
/** The list's parameters, an unknown one, and unknown ones named after object members. */
const queryName = fc.constantFrom('limit', 'status', 'cursor', 'x', 'toString', '__proto__');

function requestArbitrary(apiKey: string): fc.Arbitrary<GeneratedRequest> {
  const headers = (caller: Caller, type: string | null) => ({
    ...(caller.header === undefined ? {} : { authorization: caller.header }),
    ...(type === null ? {} : { 'content-type': type }),
  });
  const list = fc
    .record({ caller: callerArbitrary(apiKey), params: fc.array(fc.tuple(queryName, fc.oneof(decimal, urlText)), { maxLength: 4 }) })
    .map(({ caller, params }): GeneratedRequest => ({
      method: 'GET',
      url: `/v1/pets${params.length ? '?' : ''}${params.map(([key, value]) => `${key}=${value}`).join('&')}`,
      headers: headers(caller, null),
      caller: caller.kind,
    }));
  const get = fc
    .record({ caller: callerArbitrary(apiKey), id: fc.oneof(decimal, urlText, fc.constantFrom('1'.repeat(101), '9'.repeat(300))) })
    .map(({ caller, id }): GeneratedRequest => ({ method: 'GET', url: `/v1/pets/${id}`, headers: headers(caller, null), caller: caller.kind }));
  // A fresh Idempotency-Key must change nothing about how a body is judged.
  const idempotencyKey = fc.option(fc.constant(undefined).map(() => `fuzz-${++keySequence}`), { freq: 2 });
  const create = fc
    .record({
      caller: callerArbitrary(apiKey),
      payload: fc.oneof(
        { weight: 4, arbitrary: body.map((text) => ({ text, refused: false })) },
        { weight: 1, arbitrary: neverStored.map((text) => ({ text, refused: true })) },
      ),
      type: contentType,
      key: idempotencyKey,
    })
    .map(
      ({ caller, payload, type, key }): GeneratedRequest => ({
        method: 'POST',
        url: '/v1/pets',
        headers: { ...headers(caller, type), ...(key === null ? {} : { 'idempotency-key': key }) },
        payload: payload.text,
        caller: caller.kind,
        refused: payload.refused,
      }),
    );
  // Methods no route has there: a PATCH or DELETE of one pet is an operation, which would change what the last check counts.
  const other = fc
    .record({ caller: callerArbitrary(apiKey), method: fc.constantFrom('PUT' as const, 'PATCH' as const, 'DELETE' as const), path: fc.constantFrom('/v1/pets', '/pets', '/v2/pets') })
    .map(({ caller, method, path }): GeneratedRequest => ({ method, url: path, headers: headers(caller, null), caller: caller.kind }));
  return fc.oneof({ weight: 3, arbitrary: list }, { weight: 2, arbitrary: get }, { weight: 4, arbitrary: create }, { weight: 1, arbitrary: other });
}

/** The invariants every single response holds; a description of what broke, or undefined. */
function brokenInvariant(response: ApiResponse, caller: Caller['kind']): string | undefined {
  const { status } = response;
  if (status >= 500) return `a ${status}`;
  if (status >= 200 && status < 300) return caller === 'valid' ? undefined : `a ${status} without a valid key`;
  const body = response.body as Record<string, unknown> | undefined;
  const keys = body && typeof body === 'object' ? Object.keys(body).sort().join(',') : '';
  if (keys !== 'code,message,status') return `a ${status} whose body is not the Error body: ${response.text.slice(0, 200)}`;
  const code = String(body!.code);
  if (body!.status !== status || !isErrorCode(code) || ERROR_STATUSES[code].status !== status || typeof body!.message !== 'string') {
    return `a ${status} whose Error body does not match it: ${response.text.slice(0, 200)}`;
  }
  return undefined;
}

describeOnStore(`generated requests (FUZZ_SEED=${SEED})`, () => {
  let testApp: TestApp;
  let port: number;
  /** Every pet answered 201, as answered. */
  const acknowledged = new Map<number, PetBody>();

  beforeAll(async () => {
    // Callers without a key share one address here; a quota they exhaust would hide every other answer behind a 429.
    testApp = await createTestApp({ env: { RATE_LIMIT_PLANS: '{"free":{"perMinute":1000000,"perDay":1000000000}}' } });
    await testApp.app.listen(0, '127.0.0.1');
    port = (testApp.app.getHttpServer().address() as AddressInfo).port;
  });
  afterAll(() => testApp?.close());

  const runOptions = (numRuns: number): fc.Parameters<unknown> => ({
    seed: SEED,
    numRuns,
    // Shrinking replays requests against a store that has moved on; the seed and path reproduce the run.
    endOnFailure: true,
  });

  it('answers every operation request without a 5xx, with the Error body, and with data only for a valid key', async () => {
    await fc.assert(
      fc.asyncProperty(requestArbitrary(testApp.apiKey), async (request) => {
        const injected = await testApp.app.inject({ method: request.method, url: request.url, headers: request.headers, payload: request.payload });
        const response: ApiResponse = { status: injected.statusCode, headers: injected.headers, body: parseJson(injected.body), text: injected.body };
        if (response.status === 201) {
          const pet = response.body as PetBody;
          acknowledged.set(pet.id, pet);
        }
        const stored = request.refused && response.status < 300 ? `a ${response.status} for a body it must refuse` : undefined;
        const broken = brokenInvariant(response, request.caller) ?? stored;
        if (broken) throw new Error(`${request.method} ${request.url} ${String(request.payload).slice(0, 200)} got ${broken}`);
      }),
      runOptions(RUNS),
    );
  });

  it('answers raw HTTP framing on a real socket without a 5xx or a hang, with the Error body', async () => {
    await fc.assert(
      fc.asyncProperty(rawRequestArbitrary(testApp.apiKey), async ({ bytes, caller, unmetExpectation }) => {
        const exchange = await sendRaw(port, bytes, { halfClose: true, timeoutMs: HANG_MS });
        if (exchange.timedOut) throw new Error(`no answer and no close within ${HANG_MS} ms to ${JSON.stringify(bytes.slice(0, 300))}`);
        // A connection closed without an answer is allowed only where HTTP allows no answer.
        if (!exchange.response) return;
        const broken = brokenInvariant(exchange.response, caller) ?? servedDespiteExpectation(exchange.response, unmetExpectation);
        if (broken) throw new Error(`${JSON.stringify(bytes.slice(0, 300))} got ${broken}`);
      }),
      runOptions(RAW_RUNS),
    );
  });

  it('stores exactly the pets answered 201, each exactly as answered', async () => {
    // A run that never created a pet would check nothing here.
    expect(acknowledged.size).toBeGreaterThan(0);
    const stored = await collectPages<PetBody>(testApp.client, '/v1/pets?limit=100');
    expect(stored.sort((a, b) => a.id - b.id)).toEqual([...acknowledged.values()].sort((a, b) => a.id - b.id));
  });
});

/** An HTTP/1.1 request that expects anything but 100-continue is never carried out. */
function servedDespiteExpectation(response: ApiResponse, unmetExpectation: boolean): string | undefined {
  return unmetExpectation && response.status < 300 ? `a ${response.status} to an expectation other than 100-continue` : undefined;
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Raw requests: methods, paths and versions a client would not send, Host and
 * Content-Length present, absent or repeated, chunked framing intact or broken,
 * header names and sizes over the parser's limits, `Expect` met or not. Only reads carry a valid
 * key: a write on a connection closed without an answer would leave the client
 * unsure whether it was stored, and the last check could not tell either.
 */
function rawRequestArbitrary(apiKey: string): fc.Arbitrary<{ bytes: string; caller: Caller['kind']; unmetExpectation: boolean }> {
  const json = '{"name":"Rex","categoryId":1}';
  const framing = fc.constantFrom(
    { headers: [`Content-Length: ${json.length}`], body: json },
    { headers: [`Content-Length: ${json.length}`, `Content-Length: ${json.length + 1}`], body: json },
    { headers: ['Content-Length: 5'], body: json },
    { headers: [`Content-Length: ${json.length + 10}`], body: json },
    { headers: ['Content-Length: -1'], body: json },
    { headers: ['Content-Length: abc'], body: json },
    { headers: ['Transfer-Encoding: chunked'], body: `${json.length.toString(16)}\r\n${json}\r\n0\r\n\r\n` },
    { headers: ['Transfer-Encoding: chunked'], body: `zz\r\n${json}\r\n0\r\n\r\n` },
    { headers: ['Transfer-Encoding: chunked'], body: `${json.length.toString(16)}\r\n${json}` },
    { headers: ['Transfer-Encoding: chunked', `Content-Length: ${json.length}`], body: `${json.length.toString(16)}\r\n${json}\r\n0\r\n\r\n` },
    { headers: ['Transfer-Encoding: gzip, chunked'], body: '0\r\n\r\n' },
    { headers: [], body: '' },
  );
  const host = fc.constantFrom(['Host: localhost'], [], ['Host: a', 'Host: b'], ['Host: '], ['Host: exa mple']);
  const extraHeader = fc.oneof(
    fc.constantFrom('Bad Name: x', 'X-Nul: a\0b', ': empty', 'X-Long: ' + 'a'.repeat(17_000), 'X-Folded: a\r\n b', 'Content-Type: application/json'),
    printable.map((text) => `X-Fuzz: ${text}`),
  );
  const expectation = fc.oneof(
    { weight: 3, arbitrary: fc.constant<string[]>([]) },
    fc.constantFrom<string[]>(['100-continue'], ['100-Continue'], ['200-ok'], [''], ['100-continue, x-audit'], ['100-continue-please'], ['100-continue', '100-continue'], ['continue']),
    printable.map((text) => [text]),
  );
  const path = fc.oneof(
    fc.constantFrom('/v1/pets', '/v1/pets/1', '/v1/pets?limit=2', '/docs/../package.json', '/docs/%2e%2e/package.json', '*', 'http://localhost/v1/pets', '/v1/pe\0ts', '/v1/p ets', ''),
    urlText.map((text) => `/v1/pets/${text}`),
  );
  return fc
    .record({
      method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'get', 'FOO', 'CONNECT'),
      path: fc.oneof({ weight: 2, arbitrary: fc.constantFrom('/v1/pets', '/v1/pets?limit=3', '/v1/pets/1') }, path),
      version: fc.oneof({ weight: 6, arbitrary: fc.constant('HTTP/1.1') }, fc.constantFrom('HTTP/1.0', 'HTTP/2.0', 'HTTP/1.1 extra', '')),
      host: fc.oneof({ weight: 4, arbitrary: fc.constant(['Host: localhost']) }, host),
      framing: fc.oneof({ weight: 2, arbitrary: fc.constant({ headers: [], body: '' }) }, framing),
      extra: fc.oneof({ weight: 2, arbitrary: fc.constant([]) }, fc.array(extraHeader, { minLength: 1, maxLength: 2 })),
      expects: expectation,
      caller: fc.oneof(
        fc.constant<Caller>({ kind: 'valid', header: `Bearer ${apiKey}` }),
        fc.constantFrom<Caller>({ kind: 'invalid' }, { kind: 'invalid', header: 'Bearer nope' }),
      ),
    })
    .map(({ method, path, version, host, framing, extra, expects, caller }) => {
      const writes = !/^(GET|OPTIONS)$/.test(method);
      const kind = writes ? 'invalid' : caller.kind;
      const auth = writes || caller.header === undefined ? [] : [`Authorization: ${caller.header}`];
      const head = [`${method} ${path} ${version}`.trim(), ...host, ...auth, ...framing.headers, ...extra, ...expects.map((value) => `Expect: ${value}`)];
      // HTTP/1.0 has no expectations: a server ignores them there.
      const unmetExpectation = version === 'HTTP/1.1' && expects.length > 0 && !(expects.length === 1 && /^100-continue$/i.test(expects[0].trim()));
      return { bytes: `${head.join('\r\n')}\r\n\r\n${framing.body}`, caller: kind, unmetExpectation };
    });
}
