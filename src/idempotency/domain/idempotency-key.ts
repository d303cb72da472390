import { hash } from 'node:crypto';
import { InvalidInputError } from '../../errors/domain-error';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

const PRINTABLE_ASCII = /^[\x20-\x7e]{1,255}$/;

/** A structured-field String (RFC 8941 3.3.3): printable ASCII in double quotes, `\\` and `\"` escaped. */
const SF_STRING = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"$/;

/**
 * The header's value as the key it names: 1 to 255 printable ASCII characters,
 * sent as they are or as a structured-field String (the IETF draft's form:
 * `"abc"` is the key `abc`); otherwise a 400 naming the header.
 */
export function parseIdempotencyKey(value: string): string {
  const quoted = SF_STRING.exec(value);
  const key = quoted ? quoted[1].replace(/\\(["\\])/g, '$1') : value;
  if (!PRINTABLE_ASCII.test(key)) {
    throw new InvalidInputError(`${IDEMPOTENCY_KEY_HEADER} must be 1 to 255 printable ASCII characters, or a structured-field string of them`);
  }
  return key;
}

/**
 * A digest of a request body that two bodies share exactly when they hold the
 * same JSON value, whatever the order of their fields.
 */
export function fingerprintOf(body: unknown): string {
  return hash('sha256', canonicalJson(body), 'hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const fields = Object.keys(value)
      .sort()
      .map((name) => `${JSON.stringify(name)}:${canonicalJson((value as Record<string, unknown>)[name])}`);
    return `{${fields.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
