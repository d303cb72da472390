import { InvalidInputError } from '../../errors/domain-error';
import { parseIdempotencyKey } from './idempotency-key';

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
