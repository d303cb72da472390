import { ApiExtension, type HeadersObject } from '@nestjs/swagger';
import type { OpenAPIObject } from '@nestjs/swagger';

/**
 * What a route decorator adds to the answers of the routes it marks, in the
 * API document: the decorator says it once, beside what it does, and the
 * document puts it on every answer it concerns when it is built.
 */
export interface RouteDocs {
  /** The operation is deprecated. */
  readonly deprecated?: boolean;
  /** Headers on the route's successful answers: its 2xx and its 304. */
  readonly successHeaders?: HeadersObject;
  /** Headers on every answer of the route, its errors included. */
  readonly everyResponseHeaders?: HeadersObject;
}

/** Carried in the operation as an extension of this prefix and the decorator's name, then merged and removed. */
const PREFIX = 'x-route-docs-';

/** Documents what decorator `by` adds to the route's answers (see RouteDocs). */
export const DocumentRoute = (by: string, docs: RouteDocs): MethodDecorator => ApiExtension(`${PREFIX}${by}`, docs);

/** What the decorators of `operation` documented, taken out of it. */
export function takeRouteDocs(operation: NonNullable<OpenAPIObject['paths'][string]['get']>): RouteDocs[] {
  const extensions = operation as unknown as Record<string, RouteDocs>;
  const docs: RouteDocs[] = [];
  for (const key of Object.keys(extensions).filter((name) => name.startsWith(PREFIX))) {
    docs.push(extensions[key]);
    delete extensions[key];
  }
  return docs;
}
