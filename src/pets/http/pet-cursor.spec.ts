import { InvalidInputError } from '../../errors/domain/domain-error';
import { decodeCursor, encodeCursor } from './pet-cursor';

describe('pet cursor', () => {
  it.each([1, 42, 9007199254740991])('round-trips id %p through an opaque URL-safe string', (id) => {
    const cursor = encodeCursor(id);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(cursor).not.toContain(String(id));
    expect(decodeCursor(cursor)).toBe(id);
  });

  it.each(['', 'garbage!', 'cDEu', Buffer.from('p1.0').toString('base64url'), Buffer.from('p1.9007199254740992').toString('base64url'), Buffer.from('x9.5').toString('base64url'), 'A'.repeat(65)])(
    'rejects %p as malformed',
    (cursor) => {
      expect(() => decodeCursor(cursor)).toThrow(InvalidInputError);
    },
  );
});
