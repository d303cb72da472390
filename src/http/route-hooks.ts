/**
 * A route's own hooks as Fastify's onRoute hook hands them over (none, one, or
 * several), as a list to append to. Hooks added there run for that route
 * alone, and know it without reading `request.routeOptions`, which Fastify
 * builds anew on every read.
 */
export function hookList<T>(hooks: T | T[] | undefined): T[] {
  return hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];
}
