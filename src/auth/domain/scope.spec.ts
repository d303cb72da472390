import { InvalidScopesError } from './api-key.errors';
import { allScopes, checkScopes, declaredScopes, defineScope, EVERY_SCOPE, grantsScope } from './scope';

describe('scopes', () => {
  // As two modules would declare theirs; the registry is the process's, so the names are this spec's own.
  const READ = defineScope('zoo:read', 'See the zoo');
  const WRITE = defineScope('zoo:write', 'Change the zoo');

  it('are what modules declare, with what each lets a key do', () => {
    expect(declaredScopes()).toEqual(expect.arrayContaining([
      { name: 'zoo:read', description: 'See the zoo' },
      { name: 'zoo:write', description: 'Change the zoo' },
    ]));
    expect(allScopes()).toEqual(expect.arrayContaining([READ, WRITE]));
  });

  it('may be declared again alike, not differently, and only as <module>:<action>', () => {
    expect(defineScope('zoo:read', 'See the zoo')).toBe('zoo:read');
    expect(() => defineScope('zoo:read', 'Something else')).toThrow('Scope zoo:read is declared twice, differently');
    expect(() => defineScope('ZOO:read', 'Shouting')).toThrow('Scope ZOO:read is not <module>:<action> in lower case');
    expect(() => defineScope('zoo', 'No action')).toThrow('is not <module>:<action>');
  });

  it('keeps each named scope once, in the order of declaration', () => {
    expect(checkScopes([READ])).toEqual([READ]);
    expect(checkScopes([WRITE, READ, WRITE])).toEqual([READ, WRITE]);
  });

  it('refuses an undeclared scope by its name, and an empty list, naming the declared ones', () => {
    const known = allScopes().join(', ');
    expect(() => checkScopes([READ, 'zoo:delete'])).toThrow(InvalidScopesError);
    expect(() => checkScopes([READ, 'zoo:delete'])).toThrow(`unknown scope "zoo:delete"; a key may have ${known}`);
    expect(() => checkScopes([])).toThrow(`a key needs at least one scope of ${known}`);
  });

  it('lets every scope, one declared later included, through to a key holding *, and nothing unnamed to another; * is never a name --scopes takes', () => {
    const later = defineScope('zoo:feed', 'Feed the zoo');
    expect(grantsScope([EVERY_SCOPE], later)).toBe(true);
    expect(grantsScope([READ], READ)).toBe(true);
    expect(grantsScope([READ, WRITE], later)).toBe(false);
    expect(() => checkScopes([EVERY_SCOPE])).toThrow(InvalidScopesError);
  });
});
