import { AnimalStoreClient, AnimalStoreError, AnimalStoreNetworkError, ApiKeyBannedError, fullJitterDelay, nextPageQuery } from '../src';

type Answer = { status: number; body?: unknown; headers?: Record<string, string> } | Error;

/** A fetch that gives the planned answers in turn and records every request. */
function scriptedFetch(answers: Answer[]) {
  const requests: Request[] = [];
  const fetch = async (input: Request): Promise<Response> => {
    requests.push(input);
    const answer = answers[Math.min(requests.length, answers.length) - 1];
    if (answer instanceof Error) throw answer;
    return new Response(answer.body === undefined ? null : JSON.stringify(answer.body), {
      status: answer.status,
      headers: { 'Content-Type': 'application/json', ...answer.headers },
    });
  };
  return { fetch: fetch as typeof globalThis.fetch, requests };
}

const pet = { id: 1, name: 'Rex', categoryId: 3, status: 'available' };
const error = (status: number, code: string) => ({ status, body: { code, message: code, status } });

describe('AnimalStoreClient retries', () => {
  let waits: number[];
  let time: number;
  const environment = {
    now: () => time,
    sleep: async (ms: number) => {
      waits.push(ms);
      time += ms;
    },
    random: () => 0.999,
  };
  const clientWith = (answers: Answer[], retry = {}) => {
    const scripted = scriptedFetch(answers);
    return { client: new AnimalStoreClient({ baseUrl: 'http://store.test/v1/', apiKey: 'k', fetch: scripted.fetch, environment, retry }), ...scripted };
  };

  beforeEach(() => {
    waits = [];
    time = 0;
  });

  it('backs off exponentially with full jitter on 502, 503, 504 and network errors, under one Idempotency-Key', async () => {
    const { client, requests } = clientWith([error(503, 'service_unavailable'), { status: 502 }, { status: 504 }, new TypeError('fetch failed'), { status: 201, body: pet }]);
    await expect(client.createPet({ name: 'Rex', categoryId: 3 })).resolves.toEqual(pet);
    expect(waits).toEqual([199, 399, 799, 1598]);
    const keys = requests.map((request) => request.headers.get('Idempotency-Key'));
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(requests[0].headers.get('Authorization')).toBe('Bearer k');
    expect(requests[0].url).toBe('http://store.test/v1/pets');
  });

  it('sends a new Idempotency-Key for each logical create', async () => {
    const { client, requests } = clientWith([{ status: 201, body: pet }]);
    await client.createPet({ name: 'Rex', categoryId: 3 });
    await client.createPet({ name: 'Rex', categoryId: 3 });
    expect(requests[0].headers.get('Idempotency-Key')).not.toBe(requests[1].headers.get('Idempotency-Key'));
  });

  it('retries 409 idempotency_key_in_use', async () => {
    const { client, requests } = clientWith([error(409, 'idempotency_key_in_use'), { status: 201, body: pet }]);
    await expect(client.createPet({ name: 'Rex', categoryId: 3 })).resolves.toEqual(pet);
    expect(requests).toHaveLength(2);
  });

  it('retries a 503 as it retries a 429: it waits each Retry-After, and a create keeps its Idempotency-Key', async () => {
    const { client, requests } = clientWith([
      { ...error(503, 'service_unavailable'), headers: { 'Retry-After': '5' } },
      { ...error(429, 'rate_limited'), headers: { 'Retry-After': '2' } },
      { ...error(503, 'service_unavailable'), headers: { 'Retry-After': '1' } },
      { status: 201, body: pet },
    ]);
    await expect(client.createPet({ name: 'Rex', categoryId: 3 }, { idempotencyKey: 'create-rex-1' })).resolves.toEqual(pet);
    expect(waits).toEqual([5000, 2000, 1000]);
    expect(requests.map((request) => request.headers.get('Idempotency-Key'))).toEqual(['create-rex-1', 'create-rex-1', 'create-rex-1', 'create-rex-1']);
  });

  it('backs off with full jitter on a 429 or 503 that gives no Retry-After', async () => {
    const { client } = clientWith([error(429, 'rate_limited'), error(503, 'service_unavailable'), { status: 200, body: [pet] }]);
    await expect(client.listPets()).resolves.toEqual({ pets: [pet] });
    expect(waits).toEqual([199, 399]);
  });

  it('waits Retry-After on a 429', async () => {
    const { client } = clientWith([{ ...error(429, 'rate_limited'), headers: { 'Retry-After': '7' } }, { status: 200, body: [pet] }]);
    await expect(client.listPets()).resolves.toEqual({ pets: [pet] });
    expect(waits).toEqual([7000]);
  });

  it.each([
    [400, 'validation_failed'],
    [401, 'unauthorized'],
    [404, 'not_found'],
    [413, 'payload_too_large'],
    [422, 'idempotency_key_reused'],
    [500, 'internal_error'],
  ])('never retries %s %s', async (status, code) => {
    const { client, requests } = clientWith([error(status, code), { status: 201, body: pet }]);
    await expect(client.createPet({ name: 'Rex', categoryId: 3 })).rejects.toMatchObject({ status, code, body: { code, status } });
    expect(requests).toHaveLength(1);
  });

  it('stops on api_key_banned and says how long the ban lasts', async () => {
    const { client, requests } = clientWith([{ ...error(429, 'api_key_banned'), headers: { 'Retry-After': '900' } }, { status: 200, body: [] }]);
    const failure = client.listPets();
    await expect(failure).rejects.toBeInstanceOf(ApiKeyBannedError);
    await expect(failure).rejects.toMatchObject({ banSeconds: 900, message: expect.stringContaining('900 s') });
    expect(requests).toHaveLength(1);
  });

  it('gives up after the configured attempts, with the last error', async () => {
    const { client, requests } = clientWith([error(503, 'service_unavailable')], { maxAttempts: 3 });
    const failure = client.listPets();
    await expect(failure).rejects.toBeInstanceOf(AnimalStoreError);
    await expect(failure).rejects.toMatchObject({ status: 503 });
    expect(requests).toHaveLength(3);
  });

  it('gives up when the next wait would pass the time budget', async () => {
    const { client, requests } = clientWith([new TypeError('fetch failed')], { maxElapsedMs: 500 });
    await expect(client.listPets()).rejects.toBeInstanceOf(AnimalStoreNetworkError);
    expect(waits).toEqual([199]);
    expect(requests).toHaveLength(2);
  });

  it('does not wait for a Retry-After beyond the time budget', async () => {
    const { client, requests } = clientWith([{ ...error(429, 'rate_limited'), headers: { 'Retry-After': '60' } }], { maxElapsedMs: 10_000 });
    await expect(client.listPets()).rejects.toMatchObject({ code: 'rate_limited', retryAfterSeconds: 60 });
    expect(requests).toHaveLength(1);
  });
});

describe('fullJitterDelay', () => {
  it('draws below a ceiling that doubles up to the cap', () => {
    const options = { maxAttempts: 9, maxElapsedMs: 1e9, baseDelayMs: 100, maxDelayMs: 1_000 };
    expect([0, 1, 2, 3, 4, 10].map((retry) => fullJitterDelay(retry, options, () => 0.999))).toEqual([99, 199, 399, 799, 999, 999]);
    expect(fullJitterDelay(3, options, () => 0)).toBe(0);
  });
});

describe('nextPageQuery', () => {
  it('reads the query of the rel="next" target', () => {
    expect(nextPageQuery('<http://h/v1/pets?limit=5&status=sold&cursor=abc>; rel="next"')).toEqual({ limit: 5, status: 'sold', cursor: 'abc' });
    expect(nextPageQuery(null)).toBeUndefined();
    expect(nextPageQuery('<http://h/v1/pets>; rel="successor-version"')).toBeUndefined();
  });
});
