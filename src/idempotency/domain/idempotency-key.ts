import { hash } from 'node:crypto';
import { InvalidInputError } from '../../errors/domain/domain-error';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

const PRINTABLE_ASCII = /^[\x20-\x7e]{1,255}$/;

/** Whether a value can be a key: 1 to 255 printable ASCII characters. */
export function isIdempotencyKey(value: unknown): value is string {
  return typeof value === 'string' && PRINTABLE_ASCII.test(value);
}

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
  if (!isIdempotencyKey(key)) {
    throw new InvalidInputError(`${IDEMPOTENCY_KEY_HEADER} must be 1 to 255 printable ASCII characters, or a structured-field string of them`);
  }
  return key;
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

/**
 * The value as JSON with every object's fields sorted by name. Built with a
 * stack of its own rather than by recursion: a known key is checked before the
 * body is validated, so the body may nest as deep as its size allows.
 */
function canonicalJson(value: unknown): string {
  const parts: string[] = [];
  // Text to write as it is, or a value still to serialize; taken from the end.
  const pending: Array<{ text: string } | { value: unknown }> = [{ value }];
  while (pending.length) {
    const next = pending.pop()!;
    if ('text' in next) {
      parts.push(next.text);
      continue;
    }
    const node = next.value;
    if (typeof node !== 'object' || node === null) {
      parts.push(JSON.stringify(node) ?? 'null');
      continue;
    }
    const entries: Array<[string | undefined, unknown]> = Array.isArray(node)
      ? node.map((item) => [undefined, item])
      : Object.keys(node)
          .sort()
          .map((name) => [name, (node as Record<string, unknown>)[name]]);
    const [open, close] = Array.isArray(node) ? ['[', ']'] : ['{', '}'];
    pending.push({ text: close });
    for (let index = entries.length - 1; index >= 0; index--) {
      const [name, item] = entries[index];
      pending.push({ value: item });
      const label = name === undefined ? '' : `${JSON.stringify(name)}:`;
      pending.push({ text: index > 0 ? `,${label}` : label });
    }
    pending.push({ text: open });
  }
  return parts.join('');
}
