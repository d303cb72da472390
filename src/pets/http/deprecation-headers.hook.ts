import type { HeadersObject } from '@nestjs/swagger';
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { AppConfig } from '../../config/app-config';
import { requestOrigin } from '../../http/request-origin';
import { hookList } from '../../http/route-hooks';

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
 * response of the operation carries the headers, errors included. It is that
 * route's own hook, added as the route is registered (call this before routes
 * are), so no other request pays for it.
 */
export function registerDeprecationHeaders(fastify: FastifyInstance, config: AppConfig): void {
  const deprecation = `@${config.deprecatedAt}`;
  const addHeaders: onRequestHookHandler = (request, reply, done) => {
    // Names lower-cased, as Fastify sends them: setting one then costs no toLowerCase.
    reply.header('deprecation', deprecation);
    reply.header('sunset', GET_PET_SUNSET);
    reply.header('link', `<${requestOrigin(request.raw, config.trustProxy)}/v1/pets>; rel="successor-version"`);
    done();
  };
  fastify.addHook('onRoute', (route) => {
    if (route.url === GET_PET_ROUTE && route.method === 'GET') route.onRequest = [...hookList(route.onRequest), addHeaders];
  });
}
