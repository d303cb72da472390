import { Body, Controller, HttpCode, Module, Post } from '@nestjs/common';
import { IsString } from 'class-validator';
import { IdempotencyModule } from '../src/idempotency/idempotency.module';
import { Idempotent } from '../src/idempotency/http/idempotent.decorator';
import { PetHolds } from '../src/pets/domain/pet-holds';
import { ApiClient, ApiResponse, collectPages, expectErrorBody } from './support/api-client';
import { describeOnStore } from './support/describe-store';
import { createTestApp, TestApp } from './support/test-app';

interface PetBody {
  id: number;
  name: string;
  categoryId: number;
  status: 'available' | 'pending' | 'sold';
}

class NoteDto {
  @IsString()
  text: string;
}

/** A second idempotent operation, as the orders module brings one. */
@Controller({ path: 'notes', version: '1' })
class NotesController {
  @Post()
  @HttpCode(201)
  @Idempotent()
  create(@Body() body: NoteDto): { text: string } {
    return { text: body.text };
  }
}

@Module({ imports: [IdempotencyModule], controllers: [NotesController] })
class NotesModule {}

/** The placed orders, as the orders module's PetHolds would read them: here, a set the spec fills. */
const held = new Set<number>();
const holds: PetHolds = { isHeld: async (petId) => held.has(petId) };

function expectRateLimitHeaders(response: ApiResponse): void {
  for (const header of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) expect(String(response.headers[header])).toMatch(/^\d+$/);
}

describeOnStore('selling: pets changed, removed and counted', () => {
  let testApp: TestApp;
  let api: ApiClient;

  beforeAll(async () => {
    testApp = await createTestApp({ modules: [NotesModule], overrides: [{ provide: PetHolds, useValue: holds }] });
    api = testApp.client;
  });
  afterAll(() => testApp?.close());
  beforeEach(() => held.clear());

  const create = async (pet: Partial<PetBody> = {}) => (await api.post<PetBody>('/v1/pets', { name: 'Rex', categoryId: 1, ...pet })).body;
  const patch = (id: number | string, payload: unknown, headers: Record<string, string> = {}) =>
    api.request<PetBody>({ method: 'PATCH', url: `/v1/pets/${id}`, payload: typeof payload === 'string' ? payload : JSON.stringify(payload), headers: { 'content-type': 'application/merge-patch+json', ...headers } });
  const remove = (id: number | string, headers: Record<string, string> = {}) => api.request({ method: 'DELETE', url: `/v1/pets/${id}`, headers });
  const stored = async (id: number) => api.get<PetBody>(`/v1/pets/${id}`);

  describe('PATCH /v1/pets/{petId}', () => {
    it('applies a merge patch sent as application/merge-patch+json or application/json, and answers the Pet with its ETag', async () => {
      const pet = await create({ name: 'Rex', categoryId: 3 });
      const renamed = await patch(pet.id, { name: 'Max' });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toEqual({ ...pet, name: 'Max' });
      expect(Object.keys(renamed.body)).toEqual(['id', 'name', 'categoryId', 'status']);
      expect(renamed.headers.etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
      expectRateLimitHeaders(renamed);
      const moved = await patch(pet.id, { categoryId: 9007199254740991, status: 'pending' }, { 'content-type': 'application/json' });
      expect(moved.status).toBe(200);
      expect(moved.body).toEqual({ id: pet.id, name: 'Max', categoryId: 9007199254740991, status: 'pending' });
      expect((await stored(pet.id)).body).toEqual(moved.body);
    });

    it('answers 415 for another content type, and createPet 415 for a merge patch', async () => {
      const pet = await create();
      expectErrorBody(await patch(pet.id, 'name=Max', { 'content-type': 'application/x-www-form-urlencoded' }), 415, 'unsupported_media_type');
      expectErrorBody(await patch(pet.id, '{"name":"Max"}', { 'content-type': 'text/plain' }), 415, 'unsupported_media_type');
      const refused = await api.post('/v1/pets', '{"name":"Rex","categoryId":1}', { 'content-type': 'application/merge-patch+json' });
      expectErrorBody(refused, 415, 'unsupported_media_type');
      expect((await stored(pet.id)).body).toEqual(pet);
    });

    it.each<[string, unknown, RegExp]>([
      ['an empty patch', {}, /at least one of name, categoryId, status/],
      ['a null name', { name: null }, /name/],
      ['a null categoryId', { categoryId: null }, /categoryId/],
      ['a null status', { status: null }, /status/],
      ['an unknown field', { name: 'Max', colour: 'red' }, /colour/],
      ['an id', { id: 9 }, /id/],
      ['an empty name', { name: '' }, /name/],
      ['a name of white space', { name: ' \t' }, /name/],
      ['a name of 256 characters', { name: 'a'.repeat(256) }, /name/],
      ['a numeric string categoryId', { categoryId: '5' }, /categoryId/],
      ['a categoryId beyond 2^53 - 1', '{"categoryId":9007199254740993}', /categoryId/],
      ['an unknown status', { status: 'SOLD' }, /status/],
      ['an array', [{ name: 'Max' }], /JSON object/],
      ['malformed JSON', '{"name":', /JSON/],
    ])('answers 400 naming the field for %s, changing nothing', async (_case, payload, message) => {
      const pet = await create();
      const response = await patch(pet.id, payload);
      expectErrorBody(response, 400, 'validation_failed');
      expect((response.body as unknown as { message: string }).message).toMatch(message);
      expectRateLimitHeaders(response);
      expect((await stored(pet.id)).body).toEqual(pet);
    });

    it('answers 404 for no such pet and 400 for an id out of range', async () => {
      expectErrorBody(await patch(9007199254740991, { name: 'Max' }), 404, 'not_found');
      expectErrorBody(await patch('abc', { name: 'Max' }), 400, 'validation_failed');
      expectErrorBody(await patch(0, { name: 'Max' }), 400, 'validation_failed');
    });

    it.each([
      ['available', 'pending'],
      ['available', 'sold'],
      ['pending', 'available'],
      ['pending', 'sold'],
    ] as const)('moves a pet from %s to %s', async (from, to) => {
      const pet = await create({ status: from });
      const moved = await patch(pet.id, { status: to });
      expect(moved.status).toBe(200);
      expect(moved.body.status).toBe(to);
      expect((await stored(pet.id)).body.status).toBe(to);
    });

    it.each([
      ['sold', 'available'],
      ['sold', 'pending'],
    ] as const)('refuses a move from %s to %s: 409 invalid_transition naming both, nothing changed', async (from, to) => {
      const pet = await create({ status: from });
      const refused = await patch(pet.id, { status: to, name: 'Max' });
      expectErrorBody(refused, 409, 'invalid_transition');
      expect((refused.body as unknown as { message: string }).message).toBe(`A pet cannot move from ${from} to ${to}`);
      expect((await stored(pet.id)).body).toEqual(pet);
    });

    it.each(['available', 'pending', 'sold'] as const)('answers the same status (%s) 200 and changes nothing', async (status) => {
      const pet = await create({ status });
      const before = await stored(pet.id);
      const same = await patch(pet.id, { status });
      expect(same.status).toBe(200);
      expect(same.body).toEqual(pet);
      expect(same.headers.etag).toBe(before.headers.etag);
    });
  });

  describe('ETag and If-Match', () => {
    it('gives one pet one tag, from its create, its get and its change alike', async () => {
      const created = await api.post<PetBody>('/v1/pets', { name: 'Rex', categoryId: 2 });
      const got = await stored(created.body.id);
      expect(created.headers.etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
      expect(got.headers.etag).toBe(created.headers.etag);
      const changed = await patch(created.body.id, { name: 'Max' });
      expect(changed.headers.etag).not.toBe(created.headers.etag);
      const again = await stored(created.body.id);
      expect(again.headers.etag).toBe(changed.headers.etag);
      expect((await api.get(`/v1/pets/${created.body.id}`, { 'if-none-match': String(changed.headers.etag) })).status).toBe(304);
      // Changed back, the pet is the same again, and so is its tag.
      expect((await patch(created.body.id, { name: 'Rex' })).headers.etag).toBe(created.headers.etag);
    });

    it('applies a change whose If-Match is current (or *), and answers 412 precondition_failed for one that is not, changing nothing', async () => {
      const pet = await api.post<PetBody>('/v1/pets', { name: 'Rex', categoryId: 1 });
      const first = await patch(pet.body.id, { name: 'Max' }, { 'if-match': String(pet.headers.etag) });
      expect(first.status).toBe(200);
      const stale = await patch(pet.body.id, { name: 'Tom' }, { 'if-match': String(pet.headers.etag) });
      expectErrorBody(stale, 412, 'precondition_failed');
      expectRateLimitHeaders(stale);
      expect(stale.headers.etag).toBeUndefined();
      // A weak tag never matches: If-Match compares strongly.
      expectErrorBody(await patch(pet.body.id, { name: 'Tom' }, { 'if-match': `W/${first.headers.etag}` }), 412, 'precondition_failed');
      expect((await stored(pet.body.id)).body.name).toBe('Max');
      const listed = await patch(pet.body.id, { name: 'Kit' }, { 'if-match': `"nope", ${first.headers.etag}` });
      expect(listed.status).toBe(200);
      expect((await patch(pet.body.id, { name: 'Ivy' }, { 'if-match': '*' })).status).toBe(200);
      // Without If-Match, the last write wins.
      expect((await patch(pet.body.id, { name: 'Last' })).body.name).toBe('Last');
    });

    it('judges 400 before 404, and 404 before 412', async () => {
      const stale = { 'if-match': '"AAAAAAAAAAAAAAAAAAAAAA"' };
      expectErrorBody(await patch(9007199254740991, { name: null }, stale), 400, 'validation_failed');
      expectErrorBody(await patch(9007199254740991, { name: 'Max' }, stale), 404, 'not_found');
      const pet = await create({ status: 'sold' });
      expectErrorBody(await patch(pet.id, { status: 'available' }, stale), 412, 'precondition_failed');
      expectErrorBody(await remove(9007199254740991, stale), 404, 'not_found');
    });

    it('lets exactly one of several changes sent at once with the same If-Match win; the others are 412', async () => {
      const pet = await api.post<PetBody>('/v1/pets', { name: 'Rex', categoryId: 1 });
      const ifMatch = { 'if-match': String(pet.headers.etag) };
      const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => patch(pet.body.id, { name: `Racer ${i}` }, ifMatch)));
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses).toEqual([200, 412, 412, 412, 412, 412]);
      const winner = answers.find((answer) => answer.status === 200)!;
      expect((await stored(pet.body.id)).body).toEqual(winner.body);
    });

    it('lets exactly one of a change and a removal sent at once with the same If-Match win', async () => {
      const pet = await api.post<PetBody>('/v1/pets', { name: 'Rex', categoryId: 1 });
      const ifMatch = { 'if-match': String(pet.headers.etag) };
      const [changed, removed] = await Promise.all([patch(pet.body.id, { status: 'sold' }, ifMatch), remove(pet.body.id, ifMatch)]);
      // The loser read the pet before the winner wrote (412), or, the removal having won, found none (404).
      const outcome = [changed.status, removed.status];
      expect([[200, 412], [412, 204], [404, 204]]).toContainEqual(outcome);
      expect((await stored(pet.body.id)).status).toBe(removed.status === 204 ? 404 : 200);
    });
  });

  describe('DELETE /v1/pets/{petId}', () => {
    it('answers 204 without a body; the pet is then 404 everywhere and gone from every page', async () => {
      const pet = await create({ status: 'sold' });
      const removed = await remove(pet.id);
      expect(removed.status).toBe(204);
      expect(removed.text).toBe('');
      expectRateLimitHeaders(removed);
      expectErrorBody(await stored(pet.id), 404, 'not_found');
      expectErrorBody(await patch(pet.id, { name: 'Max' }), 404, 'not_found');
      expectErrorBody(await remove(pet.id), 404, 'not_found');
      for (const first of ['/v1/pets?limit=100', '/v1/pets?limit=1&status=sold']) {
        expect((await collectPages<PetBody>(api, first)).map((each) => each.id)).not.toContain(pet.id);
      }
    });

    it('honours If-Match: a stale tag is 412 and the pet stays; the current one removes it', async () => {
      const pet = await api.post<PetBody>('/v1/pets', { name: 'Rex', categoryId: 1 });
      const changed = await patch(pet.body.id, { name: 'Max' });
      expectErrorBody(await remove(pet.body.id, { 'if-match': String(pet.headers.etag) }), 412, 'precondition_failed');
      expect((await stored(pet.body.id)).status).toBe(200);
      expect((await remove(pet.body.id, { 'if-match': String(changed.headers.etag) })).status).toBe(204);
    });

    it('never hands a removed id out again, the largest included, also after a restart', async () => {
      const last = await create();
      expect((await remove(last.id)).status).toBe(204);
      const next = await create();
      expect(next.id).toBeGreaterThan(last.id);
      expect((await remove(next.id)).status).toBe(204);
      const restarted = await createTestApp({ database: testApp.database });
      try {
        const after = await restarted.client.post<PetBody>('/v1/pets', { name: 'Rex', categoryId: 1 });
        expect(after.body.id).toBeGreaterThan(next.id);
      } finally {
        await restarted.close();
      }
    });
  });

  describe('a pet held by a placed order', () => {
    it('keeps its status and cannot be removed (409 pet_reserved), while its name and category may change', async () => {
      const pet = await create({ status: 'pending' });
      held.add(pet.id);
      for (const status of ['available', 'sold'] as const) {
        const refused = await patch(pet.id, { status });
        expectErrorBody(refused, 409, 'pet_reserved');
        expectRateLimitHeaders(refused);
      }
      expectErrorBody(await remove(pet.id), 409, 'pet_reserved');
      const renamed = await patch(pet.id, { name: 'Max', categoryId: 7, status: 'pending' });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toEqual({ ...pet, name: 'Max', categoryId: 7 });
      held.delete(pet.id);
      expect((await patch(pet.id, { status: 'sold' })).status).toBe(200);
    });
  });

  describe('GET /v1/store/inventory', () => {
    it('counts each status, every status present, removed pets not counted', async () => {
      const fresh = await createTestApp();
      try {
        const client = fresh.client;
        const empty = await client.get('/v1/store/inventory');
        expect(empty.status).toBe(200);
        expect(empty.body).toEqual({ available: 0, pending: 0, sold: 0 });
        expectRateLimitHeaders(empty);
        const ids: number[] = [];
        for (const status of ['available', 'available', 'pending', 'sold', 'sold', 'sold']) {
          ids.push((await client.post<PetBody>('/v1/pets', { name: 'Rex', categoryId: 1, status })).body.id);
        }
        await client.request({ method: 'DELETE', url: `/v1/pets/${ids[5]}` });
        await client.request({ method: 'PATCH', url: `/v1/pets/${ids[0]}`, payload: { status: 'pending' } });
        await expect(client.get('/v1/store/inventory').then((response) => response.body)).resolves.toEqual({ available: 1, pending: 2, sold: 2 });
      } finally {
        await fresh.close();
      }
    });
  });

  describe('Location and Idempotency-Key', () => {
    it('answers a create with the pet\'s absolute Location, which a replay carries too', async () => {
      const key = { 'idempotency-key': `loc-${Date.now()}` };
      const created = await api.post<PetBody>('/v1/pets', { name: 'Rex', categoryId: 1 }, key);
      expect(created.status).toBe(201);
      expect(created.headers.location).toMatch(new RegExp(`^https?://[^/]+/v1/pets/${created.body.id}$`));
      const replayed = await api.post<PetBody>('/v1/pets', { name: 'Rex', categoryId: 1 }, key);
      expect(replayed.headers['idempotent-replayed']).toBe('true');
      expect(replayed.headers.location).toBe(created.headers.location);
      expect(replayed.headers.etag).toBe(created.headers.etag);
      expect((await stored(created.body.id)).headers.etag).toBe(created.headers.etag);
    });

    it('reads a structured-field string as the key it names', async () => {
      const name = `sf-${Date.now()}`;
      const first = await api.post<PetBody>('/v1/pets', { name: 'Rex', categoryId: 1 }, { 'idempotency-key': `"${name}"` });
      const again = await api.post<PetBody>('/v1/pets', { name: 'Rex', categoryId: 1 }, { 'idempotency-key': name });
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body.id).toBe(first.body.id);
      expectErrorBody(await api.post('/v1/pets', { name: 'Rex', categoryId: 1 }, { 'idempotency-key': '""' }), 400, 'validation_failed');
    });

    it('answers 422 when a key is sent to another operation than the one that made its record, and runs nothing', async () => {
      const key = { 'idempotency-key': `op-${Date.now()}` };
      expect((await api.post('/v1/notes', { text: 'hi' }, key)).status).toBe(201);
      const before = (await collectPages<PetBody>(api, '/v1/pets?limit=100')).length;
      const refused = await api.post('/v1/pets', { name: 'Rex', categoryId: 1 }, key);
      expectErrorBody(refused, 422, 'idempotency_key_reused');
      expect((refused.body as { message: string }).message).toBe('This Idempotency-Key was already used for another operation');
      expect((await collectPages<PetBody>(api, '/v1/pets?limit=100')).length).toBe(before);
      expect((await api.post('/v1/notes', { text: 'hi' }, key)).headers['idempotent-replayed']).toBe('true');
    });
  });
});
