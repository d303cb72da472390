import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { requestOrigin } from './request-origin';
import { ExtendRouteConfig } from './route-config';
import { hookList } from './route-hooks';

/** What a deprecated route tells its callers on every answer. */
export interface Deprecation {
  /** When the route was deprecated, `YYYY-MM-DD` (RFC 9745 `Deprecation: @<Unix seconds>`). */
  readonly since: string;
  /** When the route goes away, `YYYY-MM-DD` (RFC 8594 `Sunset: <HTTP date>`). */
  readonly sunset: string;
  /** The path of the operation that replaces it (RFC 8288 `rel="successor-version"`). */
  readonly successor: string;
}

interface DeprecatedRouteConfig {
  readonly deprecation?: Deprecation;
}

/**
 * Declares a route deprecated: every answer of the route, errors from guards
 * and pipes included, carries Deprecation, Sunset and a successor Link.
 * The declaration travels in the Fastify route's config, so the headers are
 * that route's own onRequest hook and no other request pays for them.
 */
export const Deprecated = (deprecation: Deprecation): MethodDecorator => ExtendRouteConfig({ deprecation } satisfies DeprecatedRouteConfig);

/** The Sunset header's value: an IMF-fixdate, as HTTP dates are sent. */
export function sunsetDate(deprecation: Pick<Deprecation, 'sunset'>): string {
  return new Date(`${deprecation.sunset}T00:00:00Z`).toUTCString();
}

/** Gives each route declared @Deprecated its headers; call before routes are registered. */
export function registerDeprecationHeaders(fastify: FastifyInstance, trustProxy: boolean): void {
  fastify.addHook('onRoute', (route) => {
    const deprecation = (route.config as DeprecatedRouteConfig | undefined)?.deprecation;
    if (!deprecation) return;
    const since = `@${Date.parse(`${deprecation.since}T00:00:00Z`) / 1000}`;
    const sunset = sunsetDate(deprecation);
    const addHeaders: onRequestHookHandler = (request, reply, done) => {
      // Names lower-cased, as Fastify sends them: setting one then costs no toLowerCase.
      reply.header('deprecation', since);
      reply.header('sunset', sunset);
      reply.header('link', `<${requestOrigin(request.raw, trustProxy)}${deprecation.successor}>; rel="successor-version"`);
      done();
    };
    route.onRequest = [...hookList(route.onRequest), addHeaders];
  });
}
