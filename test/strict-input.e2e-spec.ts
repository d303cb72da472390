import { DataSource } from 'typeorm';
import { ApiClient, ApiResponse, expectErrorBody } from './support/api-client';
import { describeOnStore } from './support/describe-store';
import { createTestApp, TestApp } from './support/test-app';

interface PetBody {
  id: number;
  name: string;
}

const DEPTH_MESSAGE = 'Request body has nesting deeper than 32 levels';

/** Fields every JavaScript object answers to without holding them. */
const MEMBER_NAMES = ['toString', 'constructor', 'valueOf', 'hasOwnProperty', 'prototype'];

/** A create's JSON with `pad` nested `depth` levels down: arrays, or objects. */
const deepBody = (depth: number, kind: 'arrays' | 'objects' = 'arrays'): string =>
  kind === 'arrays'
    ? `{"name":"Rex","categoryId":1,"pad":${'['.repeat(depth)}${']'.repeat(depth)}}`
    : `{"name":"Rex","categoryId":1,"pad":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;

/** A create's JSON as bytes, with `bytes` in the middle of the name. */
const withBytesInName = (...bytes: number[]): Buffer =>
  Buffer.concat([Buffer.from('{"name":"Re', 'utf8'), Buffer.from(bytes), Buffer.from('x","categoryId":1}', 'utf8')]);

describeOnStore('strict input: bodies and queries held to one set of rules', () => {
  let testApp: TestApp;
  let api: ApiClient;
  let sequence = 0;
  const freshKey = () => `strict-${++sequence}-${Date.now()}`;

  beforeAll(async () => {
    testApp = await createTestApp();
    api = testApp.client;
  });
  afterAll(() => testApp?.close());

  const countRows = async (table: 'pets' | 'idempotency_records'): Promise<number> =>
    Number((await testApp.app.get(DataSource).query(`SELECT COUNT(*) AS n FROM ${table}`))[0].n);
  const counts = async () => ({ pets: await countRows('pets'), records: await countRows('idempotency_records') });

  /** A create whose body is sent exactly as given: text, or raw bytes. */
  const create = async (payload: string | Buffer, headers: Record<string, string> = {}): Promise<ApiResponse> => {
    const response = await testApp.app.inject({
      method: 'POST',
      url: '/v1/pets',
      payload,
      headers: { authorization: `Bearer ${testApp.apiKey}`, 'content-type': 'application/json', ...headers },
    });
    return { status: response.statusCode, headers: response.headers, body: response.body ? JSON.parse(response.body) : undefined, text: response.body };
  };

  /** A 400 validation_failed with exactly this message. */
  const expectRefused = (response: ApiResponse, message: string) => {
    expectErrorBody(response, 400, 'validation_failed');
    expect((response.body as { message: string }).message).toBe(message);
  };

  describe('fields named after object members', () => {
    it.each(MEMBER_NAMES)('refuses a body with %s like any unknown field, and stores nothing', async (field) => {
      const before = await counts();
      expectRefused(await create(`{"name":"Rex","categoryId":1,"${field}":"x"}`), `property ${field} should not exist`);
      // Named with the other problems, unknown fields first, as any unknown field is.
      expectRefused(await create(`{"${field}":{},"name":5,"categoryId":1}`), `property ${field} should not exist; name must be a string`);
      expect(await counts()).toEqual(before);
    });

    it.each([...MEMBER_NAMES, '__proto__'])('refuses a query with %s like any unknown parameter', async (field) => {
      expectRefused(await api.get(`/v1/pets?${field}=1`), `property ${field} should not exist`);
      expectRefused(await api.get(`/v1/pets?limit=0&${field}=1`), `property ${field} should not exist; limit must be an integer from 1 to 100`);
    });

    it.each([
      ['__proto__', '{"name":"Rex","categoryId":1,"__proto__":{"isAdmin":true}}'],
      ['__proto__', '{"name":"Rex","categoryId":1,"\\u005f_proto__":{}}'],
      ['__proto__', '{"name":"Rex","categoryId":1,"pad":[{"__proto__":null}]}'],
      ['constructor.prototype', '{"name":"Rex","categoryId":1,"constructor":{"prototype":{"isAdmin":true}}}'],
    ])('names %s as a forbidden field in %s, not as invalid JSON', async (field, body) => {
      const before = await counts();
      expectRefused(await create(body), `property ${field} should not exist`);
      expectRefused(await create(body, { 'idempotency-key': freshKey() }), `property ${field} should not exist`);
      expect(await counts()).toEqual(before);
    });

    it('still calls malformed JSON malformed', async () => {
      expectRefused(await create('{"name":"Rex",'), "Body is not valid JSON but content-type is set to 'application/json'");
    });
  });

  describe('bodies that are not UTF-8', () => {
    it.each([
      ['a byte that is never UTF-8 (0xFF)', withBytesInName(0xff)],
      ['a continuation byte without a lead (0x80)', withBytesInName(0x80)],
      ['an overlong encoding of "/" (0xC0 0xAF)', withBytesInName(0xc0, 0xaf)],
      ['an encoded surrogate (0xED 0xA0 0x80)', withBytesInName(0xed, 0xa0, 0x80)],
      ['a sequence cut short (0xE2 0x82)', withBytesInName(0xe2, 0x82)],
      ['Latin-1 "é" (0xE9)', withBytesInName(0xe9)],
      ['a code point past U+10FFFF (0xF4 0x90 0x80 0x80)', withBytesInName(0xf4, 0x90, 0x80, 0x80)],
    ])('refuses %s: 400, with or without an Idempotency-Key, and stores nothing', async (_case, bytes) => {
      const before = await counts();
      expectRefused(await create(bytes), 'Request body is not valid UTF-8');
      expectRefused(await create(bytes, { 'idempotency-key': freshKey() }), 'Request body is not valid UTF-8');
      expect(await counts()).toEqual(before);
    });

    it('takes UTF-8 of every length, as bytes, and keeps it exactly', async () => {
      // "ë" (2 bytes), "猫" (3 bytes), "🐈" (4 bytes).
      const created = await create(withBytesInName(0xc3, 0xab, 0xe7, 0x8c, 0xab, 0xf0, 0x9f, 0x90, 0x88));
      expect(created.status).toBe(201);
      expect((created.body as PetBody).name).toBe('Reë猫🐈x');
    });
  });

  describe('nesting', () => {
    it.each([
      ['33 levels of arrays', deepBody(33)],
      ['7,000 levels of arrays', deepBody(7_000)],
      ['33 levels of objects', deepBody(33, 'objects')],
      ['2,000 levels of objects', deepBody(2_000, 'objects')],
    ])('refuses %s the same with or without a fresh Idempotency-Key, and stores nothing', async (_case, body) => {
      const before = await counts();
      const key = freshKey();
      const without = await create(body);
      const withKey = await create(body, { 'idempotency-key': key });
      expectRefused(without, DEPTH_MESSAGE);
      expectRefused(withKey, DEPTH_MESSAGE);
      expect(withKey.body).toEqual(without.body);
      expect(await counts()).toEqual(before);
      // The refusal left the key unused.
      expect((await create('{"name":"Rex","categoryId":1}', { 'idempotency-key': key })).status).toBe(201);
    });

    it('takes a body nested no deeper than the bound to the usual field checks', async () => {
      expectRefused(await create(deepBody(31)), 'property pad should not exist');
    });
  });

  describe('a used Idempotency-Key', () => {
    it.each([
      ['a different valid body', '{"name":"Tom","categoryId":1}'],
      ['an invalid body', '{"name":5,"categoryId":1}'],
      ['a body with a member-named field', '{"name":"Rex","categoryId":1,"toString":"x"}'],
      ['a name with a control character', '{"name":"Re\\u0000x","categoryId":1}'],
      ['a body nested 7,000 levels deep', deepBody(7_000)],
    ])('keeps its 422 for %s, and its stored answer', async (_case, body) => {
      const key = freshKey();
      const first = await create('{"name":"Rex","categoryId":1}', { 'idempotency-key': key });
      expect(first.status).toBe(201);
      const before = await counts();
      expectErrorBody(await create(body, { 'idempotency-key': key }), 422, 'idempotency_key_reused');
      expect(await counts()).toEqual(before);
      const replay = await create('{"categoryId":1,"name":"Rex"}', { 'idempotency-key': key });
      expect({ status: replay.status, body: replay.body, replayed: replay.headers['idempotent-replayed'] }).toEqual({
        status: 201,
        body: first.body,
        replayed: 'true',
      });
    });
  });
});
