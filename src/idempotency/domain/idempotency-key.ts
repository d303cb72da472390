import { hash } from 'node:crypto';
import { InvalidInputError } from '../../errors/domain-error';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

const PRINTABLE_ASCII = /^[\x20-\x7e]{1,255}$/;

/** Whether a value can be a key: 1 to 255 printable ASCII characters. */
export function isIdempotencyKey(value: unknown): value is string {
  return typeof value === 'string' && PRINTABLE_ASCII.test(value);
}

/** The header's value as the key it names, or a 400 naming the header. */
export function parseIdempotencyKey(value: string): string {
  if (!isIdempotencyKey(value)) {
    throw new InvalidInputError(`${IDEMPOTENCY_KEY_HEADER} must be 1 to 255 printable ASCII characters`);
  }
  return value;
}

/** Whether a value can be a digest that fingerprintOf made: 64 lower-case hex digits. */
export function isFingerprint(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9a-f]{64}$/.test(value);
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
