import { InvalidScopesError } from './api-key.errors';

/** What a key may do: read the catalogue (list and get pets), write to it (create pets). */
export const SCOPES = ['pets:read', 'pets:write'] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && (SCOPES as readonly string[]).includes(value);
}

/** The named scopes, each once, in the order of SCOPES; an unknown name or none at all is refused. */
export function checkScopes(names: readonly string[]): Scope[] {
  const unknown = names.find((name) => !isScope(name));
  if (unknown !== undefined) throw new InvalidScopesError(unknown, SCOPES);
  if (names.length === 0) throw new InvalidScopesError(null, SCOPES);
  return SCOPES.filter((scope) => names.includes(scope));
}
