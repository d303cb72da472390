import { requestIdFor } from './request-id';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('requestIdFor', () => {
  it.each(['abc-123', '4bf92f3577b34da6a3ce929d0e0e4736', '01HZX3V6F8Q2W9M4N7K5J1B0C2', 'span:1.2_x~y+z/w=', 'a'.repeat(128)])(
    'keeps the sane id %s',
    (id) => {
      expect(requestIdFor(id)).toBe(id);
    },
  );

  it.each([
    ['absent', undefined],
    ['empty', ''],
    ['too long', 'a'.repeat(129)],
    ['with a space', 'a b'],
    ['with a new line', 'a\nfake log line'],
    ['with quotes', 'a"b'],
    ['with non-ASCII', 'idé'],
    ['sent twice', ['a', 'b']],
  ])('replaces an id that is %s with a new UUID', (_, header) => {
    expect(requestIdFor(header)).toMatch(UUID);
  });

  it('generates a different id each time', () => {
    expect(requestIdFor(undefined)).not.toBe(requestIdFor(undefined));
  });
});
