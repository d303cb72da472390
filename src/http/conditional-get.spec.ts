import { entityTagOf, noneMatchHolds } from './conditional-get';

describe('entity tags', () => {
  const tag = entityTagOf('[{"id":1}]', '<http://h/v1/pets?cursor=x>; rel="next"');

  it('are a quoted digest that changes with the body and with the Link, and only with them', () => {
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    expect(entityTagOf('[{"id":1}]', '<http://h/v1/pets?cursor=x>; rel="next"')).toBe(tag);
    expect(entityTagOf('[{"id":2}]', '<http://h/v1/pets?cursor=x>; rel="next"')).not.toBe(tag);
    expect(entityTagOf('[{"id":1}]', '')).not.toBe(tag);
  });

  it('hold for If-None-Match naming them, weakly compared, in a list, or as *', () => {
    for (const field of [tag, `W/${tag}`, `"a", ${tag}`, `W/"a",W/${tag}`, ' * ', `  ${tag}  `]) expect(noneMatchHolds(field, tag)).toBe(true);
  });

  it('do not hold for no field, other tags, an unquoted tag or garbage', () => {
    for (const field of [undefined, '', '"a"', 'W/"a", "b"', tag.slice(1, -1), '**', `"${tag}"`]) expect(noneMatchHolds(field, tag)).toBe(false);
  });
});
