import { InvalidInputError } from '../errors/domain/domain-error';
import { isPositiveSafeInteger, parseDecimal } from './validation';

/**
 * An opaque cursor of a keyset page: the id to continue after, behind a
 * prefix that names the list and its format version, so its format may change later.
 */
export function keysetCursor(prefix: string) {
  return {
    encode(afterId: number): string {
      return Buffer.from(`${prefix}${afterId}`, 'utf8').toString('base64url');
    },
    decode(cursor: string): number {
      const text = /^[A-Za-z0-9_-]{1,64}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
      const id = text.startsWith(prefix) ? parseDecimal(text.slice(prefix.length)) : NaN;
      if (!isPositiveSafeInteger(id)) throw new InvalidInputError('cursor is malformed; follow the Link header of the previous page');
      return id;
    },
  };
}
