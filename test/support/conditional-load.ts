import type { ServiceProcess } from './service-process';

/** A page that holds every pet of the spec's store, so it has no next link and one tag on every instance. */
export const WHOLE_LIST = '/v1/pets?limit=100';

interface Answer {
  readonly kind: 'plain' | 'conditional';
  readonly status: number;
  readonly code?: string;
  readonly remaining: number;
}

async function send(instance: ServiceProcess, secret: string, ifNoneMatch?: string): Promise<Omit<Answer, 'kind'>> {
  const response = await fetch(`${instance.url}${WHOLE_LIST}`, {
    headers: { authorization: `Bearer ${secret}`, ...(ifNoneMatch ? { 'if-none-match': ifNoneMatch } : {}) },
    signal: AbortSignal.timeout(20_000),
  });
  const text = await response.text();
  return {
    status: response.status,
    code: response.status === 429 ? (JSON.parse(text) as { code: string }).code : undefined,
    remaining: Number(response.headers.get('x-ratelimit-remaining')),
  };
}

/** The list's current ETag, read with a key of another account, the same from every instance. */
export async function currentTag(instances: readonly ServiceProcess[], otherSecret: string): Promise<string> {
  const tags = await Promise.all(
    instances.map(async (instance) => {
      const response = await fetch(`${instance.url}${WHOLE_LIST}`, { headers: { authorization: `Bearer ${otherSecret}` } });
      expect(response.status).toBe(200);
      expect(response.headers.get('link')).toBeNull();
      return String(response.headers.get('etag'));
    }),
  );
  expect(new Set(tags).size).toBe(1);
  return tags[0];
}

/**
 * 400 conditional requests naming the current tag and 59 plain ones for a
 * 60-per-minute key, sent all at once and interleaved over the instances:
 * every conditional is a 304 that spends no plan quota while the plan has
 * room, so the plain ones leave 59 down to 1, each once. The 60th plain one
 * spends the minute; then a conditional is refused 429 like any request.
 */
export async function expectConditionalsToSpendNothing(instances: readonly ServiceProcess[], secret: string, tag: string): Promise<void> {
  const kinds = Array.from({ length: 459 }, (_, i): Answer['kind'] => (i % 7 === 0 && i <= 7 * 58 ? 'plain' : 'conditional'));
  const answers: Answer[] = await Promise.all(
    kinds.map(async (kind, i) => ({ kind, ...(await send(instances[i % instances.length], secret, kind === 'conditional' ? tag : undefined)) })),
  );
  const tally = (kind: Answer['kind']) => {
    const counts: Record<number, number> = {};
    for (const answer of answers.filter((a) => a.kind === kind)) counts[answer.status] = (counts[answer.status] ?? 0) + 1;
    return counts;
  };
  expect({ conditional: tally('conditional'), plain: tally('plain') }).toEqual({ conditional: { 304: 400 }, plain: { 200: 59 } });
  // Each plain request left one fewer: 59 down to 1, each once.
  expect(answers.filter((a) => a.kind === 'plain').map((a) => a.remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: 59 }, (_, i) => i + 1));

  const last = await send(instances[0], secret);
  expect(last).toMatchObject({ status: 200, remaining: 0 });
  const [refused, conditional] = [await send(instances[1 % instances.length], secret), await send(instances[0], secret, tag)];
  expect(refused).toMatchObject({ status: 429, code: 'rate_limited', remaining: 0 });
  expect(conditional).toMatchObject({ status: 429, code: 'rate_limited', remaining: 0 });
}
