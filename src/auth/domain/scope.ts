import { InvalidScopesError } from './api-key.errors';

/** What a key may do, named by the module that offers it, e.g. `pets:read`. */
export type Scope = string;

/** What each declared scope lets a key do, by name, in the order modules declared them. */
const declared = new Map<Scope, string>();

/**
 * Declares a scope once, with what it lets a key do, and returns its name for
 * the module's @RequireScope(); the module that offers the operations declares
 * it, beside them. Declared twice differently is a mistake of the code.
 */
export function defineScope<const S extends string>(name: S, description: string): S {
  if (!/^[a-z][a-z0-9_-]*:[a-z][a-z0-9_-]*$/.test(name)) throw new Error(`Scope ${name} is not <module>:<action> in lower case`);
  const existing = declared.get(name);
  if (existing !== undefined && existing !== description) throw new Error(`Scope ${name} is declared twice, differently`);
  declared.set(name, description);
  return name;
}

/** Every declared scope with what it lets a key do, in the order of declaration. */
export function declaredScopes(): ReadonlyArray<{ readonly name: Scope; readonly description: string }> {
  return [...declared].map(([name, description]) => ({ name, description }));
}

/** The named scopes, each once, in the order of declaration; an undeclared name or none at all is refused. */
export function checkScopes(names: readonly string[]): Scope[] {
  const known = [...declared.keys()];
  const unknown = names.find((name) => !declared.has(name));
  if (unknown !== undefined) throw new InvalidScopesError(unknown, known);
  if (names.length === 0) throw new InvalidScopesError(null, known);
  return known.filter((scope) => names.includes(scope));
}

/** Every declared scope, as `--scopes` may name them. */
export function allScopes(): Scope[] {
  return [...declared.keys()];
}

/**
 * What a key made without a list holds: every scope, those declared later
 * included, so an operation added later is open to it too. Never declared,
 * so `--scopes` cannot name it.
 */
export const EVERY_SCOPE = '*';

/** The scopes a stored key may hold: every scope (a key made without a list), or a list `--scopes` would take. */
export function checkHeldScopes(names: readonly string[]): Scope[] {
  return names.length === 1 && names[0] === EVERY_SCOPE ? [EVERY_SCOPE] : checkScopes(names);
}

/** Whether scopes a key holds let it do what `scope` guards. */
export function grantsScope(held: readonly Scope[], scope: Scope): boolean {
  return held.includes(EVERY_SCOPE) || held.includes(scope);
}
