import fc from 'fast-check';
import { hash } from 'node:crypto';
import { InvalidInputError } from '../../errors/domain/domain-error';
import { fingerprintOf, parseIdempotencyKey } from './idempotency-key';

describe('parseIdempotencyKey', () => {
  it.each([
    ['abc', 'abc'],
    ['"abc"', 'abc'],
    ['"a \\"quoted\\" \\\\ key"', 'a "quoted" \\ key'],
    ['3f1c-uuid', '3f1c-uuid'],
    // Not a structured-field string: the value as sent is the key.
    ['"abc', '"abc'],
    ['a"b"', 'a"b"'],
  ])('reads %s as the key %s', (header, key) => {
    expect(parseIdempotencyKey(header)).toBe(key);
  });

  it.each(['', '""', 'caf\u00e9', `"${'k'.repeat(256)}"`, 'k'.repeat(256)])('refuses %p with a 400 naming the header', (header) => {
    expect(() => parseIdempotencyKey(header)).toThrow(InvalidInputError);
    expect(() => parseIdempotencyKey(header)).toThrow(/Idempotency-Key/);
  });
});

/** The canonical form as records already stored were fingerprinted: fields sorted by name, at every level. */
function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const fields = Object.keys(value)
      .sort()
      .map((name) => `${JSON.stringify(name)}:${sortedJson((value as Record<string, unknown>)[name])}`);
    return `{${fields.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const sha256 = (text: string) => hash('sha256', text, 'hex');

describe('fingerprintOf', () => {
  it('digests the JSON value with every object’s fields sorted by name', () => {
    const body = { name: 'Zoë', categoryId: 3, tags: [2, { b: null, a: 'x' }, []], extra: {} };
    expect(fingerprintOf(body)).toBe(sha256('{"categoryId":3,"extra":{},"name":"Zoë","tags":[2,{"a":"x","b":null},[]]}'));
    expect(fingerprintOf({ categoryId: 3, name: 'Zoë', extra: {}, tags: [2, { a: 'x', b: null }, []] })).toBe(fingerprintOf(body));
  });

  it('gives every JSON value the fingerprint it had before, so records already stored still match their retries', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        expect(fingerprintOf(value)).toBe(sha256(sortedJson(value)));
      }),
      { seed: 7, numRuns: 500 },
    );
  });

  it('digests a body nested far deeper than the call stack allows, and tells depths apart', () => {
    const nested = (depth: number) => JSON.parse(`{"pad":${'['.repeat(depth)}${']'.repeat(depth)}}`);
    expect(fingerprintOf(nested(200_000))).toBe(sha256(`{"pad":${'['.repeat(200_000)}${']'.repeat(200_000)}}`));
    expect(fingerprintOf(nested(200_000))).not.toBe(fingerprintOf(nested(199_999)));
  });
});
