import { ApiClient, collectPages, expectErrorBody } from './support/api-client';
import { describeOnStore } from './support/describe-store';
import { createTestApp, TestApp } from './support/test-app';

interface PetBody {
  id: number;
  name: string;
}

/** Strings UTF-8 holds exactly: each must come back as sent, code unit for code unit. */
const WELL_FORMED: Array<[string, string]> = [
  ['ASCII', 'Rex'],
  ['a precomposed accent', 'Zo\u00eb'],
  ['a combining accent', 'Zoe\u0308'],
  ['CJK', '\u732b\u306e\u30bf\u30de'],
  ['an emoji (four bytes in UTF-8)', '\u{1F408}'],
  ['an emoji sequence joined by ZWJ', '\u{1F408}\u200d\u2b1b'],
  ['a flag (two regional indicators)', '\u{1F1EF}\u{1F1F5}'],
  ['a character beyond the BMP that is not an emoji', '\u{20BB7}\u{1D11E}'],
  ['surrounding white space', '  Rex\u00a0'],
  ['a byte order mark', '\ufeffRex'],
  ['a zero-width joiner (U+200D)', 'Re\u200dx'],
  ['a left-to-right mark (U+200E)', '\u200eRex'],
  ['every joiner and mark (U+200C to U+200F)', 'a\u200cb\u200dc\u200ed\u200f'],
  ['255 four-byte characters', '\u{1F436}'.repeat(255)],
  ['a replacement character sent as such', 'a\ufffdb'],
];

/** Strings with a UTF-16 surrogate that has no partner: UTF-8 cannot hold them. */
const LONE_SURROGATES: Array<[string, string]> = [
  ['a low surrogate inside', 'a\udc00b'],
  ['a high surrogate alone', '\ud800'],
  ['a high surrogate at the end', 'Rex\ud83d'],
  ['a pair in the wrong order', '\udc00\ud800'],
];

/** Control characters (Unicode Cc) and bidirectional embeddings, overrides and isolates: a name may hold none. */
const CONTROL_CHARACTERS: Array<[string, string, string]> = [
  ['NUL', 'Re\u0000x', 'U+0000'],
  ['U+0001', 'Re\u0001x', 'U+0001'],
  ['a tab', 'Rex\t', 'U+0009'],
  ['DEL (U+007F)', 'Re\u007fx', 'U+007F'],
  ['NEL (U+0085), a C1 control', 'Re\u0085x', 'U+0085'],
  ['a right-to-left override (U+202E)', 'Rex\u202e', 'U+202E'],
  ['a left-to-right isolate (U+2066)', '\u2066Rex', 'U+2066'],
];

describeOnStore('strings in pet names', () => {
  let testApp: TestApp;
  let api: ApiClient;

  beforeAll(async () => {
    testApp = await createTestApp();
    api = testApp.client;
  });
  afterAll(() => testApp?.close());

  const listAll = () => collectPages<PetBody>(api, '/v1/pets?limit=100');

  it.each(WELL_FORMED)('keeps %s exactly as sent, on create and on every read', async (_case, name) => {
    const created = await api.post<PetBody>('/v1/pets', { name, categoryId: 1 });
    expect(created.status).toBe(201);
    expect(created.body.name).toBe(name);
    const read = await api.get<PetBody>(`/v1/pets/${created.body.id}`);
    expect(read.body.name).toBe(name);
    const listed = (await listAll()).find((pet) => pet.id === created.body.id);
    expect(listed?.name).toBe(name);
    expect(Buffer.from(listed!.name, 'utf8').equals(Buffer.from(name, 'utf8'))).toBe(true);
  });

  it.each(LONE_SURROGATES)('refuses a name with %s: 400 naming the field, nothing stored', async (_case, name) => {
    const before = (await listAll()).length;
    // JSON.stringify writes a lone surrogate as a \u escape, which JSON.parse turns back into it.
    const response = await api.post('/v1/pets', { name, categoryId: 1 });
    expectErrorBody(response, 400, 'validation_failed');
    expect((response.body as { message: string }).message).toMatch(/\bname\b/);
    expect((await listAll()).length).toBe(before);
  });

  it.each(CONTROL_CHARACTERS)('refuses a name with %s: 400 naming the field and the character, nothing stored', async (_case, name, found) => {
    const before = (await listAll()).length;
    const response = await api.post('/v1/pets', { name, categoryId: 1 });
    expectErrorBody(response, 400, 'validation_failed');
    expect((response.body as { message: string }).message).toBe(`name must not contain control or bidirectional formatting characters (found ${found})`);
    expect((await listAll()).length).toBe(before);
  });
});
