import type { HeadersObject } from '@nestjs/swagger';
import type { FastifyInstance } from 'fastify';
import { AppConfig } from '../../config/app-config';
import { requestOrigin } from '../../http/request-origin';

export const GET_PET_SUNSET = 'Thu, 05 Dec 2030 00:00:00 GMT';
const GET_PET_ROUTE = '/v1/pets/:petId';

/** The headers below, as the API document describes them on every response of `getPet`. */
export const DEPRECATION_RESPONSE_HEADERS: HeadersObject = {
  Deprecation: {
    required: true,
    description: 'RFC 9745: when the operation was deprecated, as `@<Unix seconds>`',
    schema: { type: 'string', pattern: '^@\\d+$', example: '@1763683200' },
  },
  Sunset: {
    required: true,
    description: 'RFC 8594: the operation is removed at this time',
    schema: { type: 'string', enum: [GET_PET_SUNSET] },
  },
  Link: {
    required: true,
    description: 'RFC 8288: the operation that replaces this one, `GET /pets` (filter with `status`)',
    schema: { type: 'string', pattern: '^<[^>]+/v1/pets>; rel="successor-version"$' },
  },
};

/**
 * `GET /v1/pets/{petId}` is deprecated (RFC 9745) and sunsets on 5 December 2030
 * (RFC 8594). An onRequest hook runs before guards, pipes and filters, so every
 * response of the operation carries the headers, errors included. It is a
 * Fastify hook rather than a Nest middleware: with no middleware at all, no
 * request pays for the middleware engine's path matching.
 */
export function registerDeprecationHeaders(fastify: FastifyInstance, config: AppConfig): void {
  const deprecation = `@${config.deprecatedAt}`;
  fastify.addHook('onRequest', (request, reply, done) => {
    if (request.method === 'GET' && request.routeOptions.url === GET_PET_ROUTE) {
      // Names lower-cased, as Fastify sends them: setting one then costs no toLowerCase.
      reply.header('deprecation', deprecation);
      reply.header('sunset', GET_PET_SUNSET);
      reply.header('link', `<${requestOrigin(request.raw, config.trustProxy)}/v1/pets>; rel="successor-version"`);
    }
    done();
  });
}
