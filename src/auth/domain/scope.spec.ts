import { InvalidScopesError } from './api-key.errors';
import { checkScopes, isScope, SCOPES } from './scope';

describe('scopes', () => {
  it('are pets:read and pets:write', () => {
    expect(SCOPES).toEqual(['pets:read', 'pets:write']);
    expect(['pets:read', 'pets:write', 'pets:delete', 'PETS:READ', '', undefined].map(isScope)).toEqual([true, true, false, false, false, false]);
  });

  it('keeps each named scope once, in their own order', () => {
    expect(checkScopes(['pets:read'])).toEqual(['pets:read']);
    expect(checkScopes(['pets:write', 'pets:read', 'pets:write'])).toEqual(['pets:read', 'pets:write']);
  });

  it('refuses an unknown scope by its name, and an empty list', () => {
    expect(() => checkScopes(['pets:read', 'pets:delete'])).toThrow(InvalidScopesError);
    expect(() => checkScopes(['pets:read', 'pets:delete'])).toThrow('unknown scope "pets:delete"; a key may have pets:read, pets:write');
    expect(() => checkScopes([])).toThrow('a key needs at least one scope of pets:read, pets:write');
  });
});
