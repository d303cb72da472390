import { applyDecorators } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import type { onRequestHookHandler } from 'fastify';
import type { AppConfig } from '../config/app-config';
import { ownUrl } from './own-url';
import { DocumentRoute } from './route-docs';

/** What a deprecated route tells its callers on every answer. */
export interface Deprecation {
  /** When the route was deprecated, `YYYY-MM-DD` (RFC 9745 `Deprecation: @<Unix seconds>`). */
  readonly since: string;
  /** When the route goes away, `YYYY-MM-DD` (RFC 8594 `Sunset: <HTTP date>`). */
  readonly sunset: string;
  /** The path of the operation that replaces it (RFC 8288 `rel="successor-version"`). */
  readonly successor: `/v1/${string}`;
}

/** The header values of a deprecation, worked out once where the route is declared. */
interface DeprecationHeaders {
  readonly deprecation: string;
  readonly sunset: string;
  readonly successor: Deprecation['successor'];
}

/** A deprecated route's Fastify route config, which Fastify hands to each of its requests. */
interface DeprecatedRouteConfig {
  readonly deprecation?: DeprecationHeaders;
}

/** The Sunset header's value: an IMF-fixdate, as HTTP dates are sent. */
export function sunsetDate(deprecation: Pick<Deprecation, 'sunset'>): string {
  return new Date(`${deprecation.sunset}T00:00:00Z`).toUTCString();
}

/**
 * Declares a route deprecated: every answer of the route, a guard's refusal
 * included, carries Deprecation, Sunset and a Link to the successor, and the
 * API document marks the operation deprecated and lists the three headers on
 * each of its responses.
 */
export const Deprecated = (deprecation: Deprecation): MethodDecorator => {
  const headers: DeprecationHeaders = {
    deprecation: `@${Date.parse(`${deprecation.since}T00:00:00Z`) / 1000}`,
    sunset: sunsetDate(deprecation),
    successor: deprecation.successor,
  };
  return applyDecorators(
    RouteConfig({ deprecation: headers } satisfies DeprecatedRouteConfig),
    DocumentRoute('deprecated', {
      deprecated: true,
      everyResponseHeaders: {
        Deprecation: {
          required: true,
          description: 'RFC 9745: when the operation was deprecated, as `@<Unix seconds>`',
          schema: { type: 'string', pattern: '^@\\d+$', example: '@1763683200' },
        },
        Sunset: {
          required: true,
          description: 'RFC 8594: the operation is removed at this time',
          schema: { type: 'string', enum: [headers.sunset] },
        },
        Link: {
          required: true,
          description: `RFC 8288: the operation that replaces this one, \`GET ${deprecation.successor.replace(/^\/v1/, '')}\``,
          schema: { type: 'string', pattern: `^<[^>]+${deprecation.successor}>; rel="successor-version"$` },
        },
      },
    }),
  );
};

/** Whether a route was declared @Deprecated(), read from its Fastify route config when the route is added. */
export function isDeprecatedRoute(route: { readonly config?: unknown }): boolean {
  return (route.config as DeprecatedRouteConfig | undefined)?.deprecation !== undefined;
}

/**
 * A @Deprecated() route's own onRequest hook, the first step of the route's
 * every request after the global ones, so that every answer carries the
 * headers: a guard's refusal, a refused body and the exception filter's
 * answers included. The route's declaration reaches it as its Fastify route
 * config (docs/adr/0034); the request pipeline gives it to those routes alone.
 */
export function deprecationHeadersHook(config: Pick<AppConfig, 'ownBaseUrl'>): onRequestHookHandler {
  return function writeDeprecationHeaders(request, reply, done) {
    const headers = (request.routeOptions.config as DeprecatedRouteConfig).deprecation!;
    reply
      .header('Deprecation', headers.deprecation)
      .header('Sunset', headers.sunset)
      .header('Link', `<${ownUrl(config, headers.successor)}>; rel="successor-version"`);
    done();
  };
}
