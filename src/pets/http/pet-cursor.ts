import { InvalidInputError } from '../../errors/domain-error';
import { isPositiveSafeInteger, parseDecimal } from '../../http/validation';

// The cursor is opaque to clients; the version prefix lets its format change later.
const PREFIX = 'p1.';

export function encodeCursor(afterId: number): string {
  return Buffer.from(`${PREFIX}${afterId}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): number {
  const text = /^[A-Za-z0-9_-]{1,64}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  const id = text.startsWith(PREFIX) ? parseDecimal(text.slice(PREFIX.length)) : NaN;
  if (!isPositiveSafeInteger(id)) throw new InvalidInputError('cursor is malformed; follow the Link header of the previous page');
  return id;
}
