import { applyDecorators, type CanActivate, type ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig } from '../config/app-config';
import { requestOrigin } from './request-origin';
import { DocumentRoute } from './route-docs';
import { RouteReflector } from './route-reflector';

/** What a deprecated route tells its callers on every answer. */
export interface Deprecation {
  /** When the route was deprecated, `YYYY-MM-DD` (RFC 9745 `Deprecation: @<Unix seconds>`). */
  readonly since: string;
  /** When the route goes away, `YYYY-MM-DD` (RFC 8594 `Sunset: <HTTP date>`). */
  readonly sunset: string;
  /** The path of the operation that replaces it (RFC 8288 `rel="successor-version"`). */
  readonly successor: string;
}

/** The header values of a deprecation, worked out once where the route is declared. */
interface DeprecationHeaders {
  readonly deprecation: string;
  readonly sunset: string;
  readonly successor: string;
}

const DEPRECATED = 'animal-store:deprecated';

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
    SetMetadata(DEPRECATED, headers),
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

/**
 * The first global guard, which refuses nothing: a @Deprecated() route's
 * headers go on before any guard can refuse the request, as the guards'
 * refusals are answers of the route too and nothing but the exception filter
 * runs after them.
 */
@Injectable()
export class DeprecationGuard implements CanActivate {
  constructor(
    private readonly reflector: RouteReflector,
    private readonly config: AppConfig,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const headers = this.reflector.get(DEPRECATED, context.getHandler()) as DeprecationHeaders | undefined;
    if (!headers) return true;
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    // Names lower-cased, as Fastify sends them: setting one then costs no toLowerCase.
    http
      .getResponse<FastifyReply>()
      .header('deprecation', headers.deprecation)
      .header('sunset', headers.sunset)
      .header('link', `<${requestOrigin(request.raw, this.config.trustProxy)}${headers.successor}>; rel="successor-version"`);
    return true;
  }
}
