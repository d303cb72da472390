import { AnimalStoreClient } from '../src';

type Answer = { status: number; body?: unknown; headers?: Record<string, string> };

/** A fetch that gives the planned answers in turn and records every request. */
function scriptedFetch(answers: Answer[]) {
  const requests: Request[] = [];
  const fetch = async (input: Request): Promise<Response> => {
    requests.push(input);
    const answer = answers[requests.length - 1];
    if (!answer) throw new Error(`No answer planned for request ${requests.length}`);
    const body = answer.body === undefined ? null : JSON.stringify(answer.body);
    return new Response(body, { status: answer.status, headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...answer.headers } });
  };
  return { fetch: fetch as typeof globalThis.fetch, requests };
}

const rex = { id: 1, name: 'Rex', categoryId: 3, status: 'available' as const };
const tom = { id: 2, name: 'Tom', categoryId: 3, status: 'sold' as const };
const nextLink = { link: '<http://store.test/v1/pets?limit=1&cursor=abc>; rel="next"' };

describe('AnimalStoreClient conditional requests', () => {
  const clientWith = (answers: Answer[], cacheEntries?: number) => {
    const scripted = scriptedFetch(answers);
    return { client: new AnimalStoreClient({ baseUrl: 'http://store.test/v1', apiKey: 'k', fetch: scripted.fetch, cacheEntries }), ...scripted };
  };
  const ifNoneMatch = (requests: Request[]) => requests.map((request) => request.headers.get('If-None-Match'));

  it('asks for a page it has seen with its ETag, and returns its copy, next page included, on 304', async () => {
    const { client, requests } = clientWith([
      { status: 200, body: [rex], headers: { etag: '"p1"', ...nextLink } },
      { status: 304, headers: { etag: '"p1"' } },
      { status: 200, body: [rex, tom], headers: { etag: '"p2"' } },
      { status: 304, headers: { etag: '"p2"' } },
    ]);
    const first = await client.listPets({ limit: 1 });
    expect(first).toEqual({ pets: [rex], next: { limit: 1, cursor: 'abc' } });
    await expect(client.listPets({ limit: 1 })).resolves.toEqual(first);
    await expect(client.listPets({ limit: 2 })).resolves.toEqual({ pets: [rex, tom] });
    await expect(client.listPets({ limit: 2 })).resolves.toEqual({ pets: [rex, tom] });
    expect(ifNoneMatch(requests)).toEqual([null, '"p1"', null, '"p2"']);
  });

  it('keeps the newer page when the page changed, and hands out copies the caller may change', async () => {
    const { client, requests } = clientWith([
      { status: 200, body: [rex], headers: { etag: '"old"' } },
      { status: 200, body: [rex, tom], headers: { etag: '"new"' } },
      { status: 304, headers: { etag: '"new"' } },
    ]);
    (await client.listPets()).pets.push(tom);
    const changed = await client.listPets();
    changed.pets.length = 0;
    await expect(client.listPets()).resolves.toEqual({ pets: [rex, tom] });
    expect(ifNoneMatch(requests)).toEqual([null, '"old"', '"new"']);
  });

  it('asks for a pet it has seen with its ETag', async () => {
    const { client, requests } = clientWith([
      { status: 200, body: rex, headers: { etag: '"r"' } },
      { status: 304, headers: { etag: '"r"' } },
      { status: 200, body: tom, headers: { etag: '"t"' } },
    ]);
    await expect(client.getPet(1)).resolves.toEqual(rex);
    await expect(client.getPet(1)).resolves.toEqual(rex);
    await expect(client.getPet(2)).resolves.toEqual(tom);
    expect(ifNoneMatch(requests)).toEqual([null, '"r"', null]);
  });

  it('keeps at most cacheEntries answers, the least recently used going first, and none with 0', async () => {
    const answers = (n: number) => Array.from({ length: n }, (_, i) => ({ status: 200, body: rex, headers: { etag: `"${i}"` } }));
    const bounded = clientWith(answers(5), 2);
    for (const id of [1, 2, 1, 3, 1]) await bounded.client.getPet(id);
    // Pet 2 went when pet 3 came; pet 1, used since, stayed.
    expect(ifNoneMatch(bounded.requests)).toEqual([null, null, '"0"', null, '"2"']);
    const none = clientWith(answers(2), 0);
    for (const id of [1, 1]) await none.client.getPet(id);
    expect(ifNoneMatch(none.requests)).toEqual([null, null]);
  });

  it('reads the quota without spending it', async () => {
    const status = { plan: 'free', account: { id: 3 }, windows: [{ name: 'minute', limit: 60, remaining: 59, reset: 1795219260 }], ban: null };
    const { client, requests } = clientWith([{ status: 200, body: status }]);
    await expect(client.rateLimit()).resolves.toEqual(status);
    expect(requests[0].url).toBe('http://store.test/v1/rate_limit');
  });

  it("reads the account's usage for the days asked", async () => {
    const none = { success: 0, notModified: 0, clientError: 0, rateLimited: 0, serverError: 0 };
    const usage = { account: { id: 3 }, from: '2030-01-01', to: '2030-01-02', total: none, keys: [], days: [] };
    const { client, requests } = clientWith([{ status: 200, body: usage }]);
    await expect(client.usage({ from: '2030-01-01', to: '2030-01-02' })).resolves.toEqual(usage);
    expect(requests[0].url).toBe('http://store.test/v1/usage?from=2030-01-01&to=2030-01-02');
  });
});
