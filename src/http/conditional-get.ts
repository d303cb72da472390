import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import type { FastifyInstance, onSendHookHandler } from 'fastify';
import { hash } from 'node:crypto';
import { takeDeferredCharge } from './request-context';
import { ExtendRouteConfig } from './route-config';
import { hookList } from './route-hooks';

export const CONDITIONAL_GET = 'animal-store:conditional-get';

interface ConditionalRouteConfig {
  readonly conditionalGet?: boolean;
}

/**
 * The entity tag of a JSON answer: a digest of its body and of its `Link`
 * header (a page's next link is part of what the client holds), so it
 * changes exactly when either does.
 */
export function entityTagOf(json: string, link: string): string {
  // 22 base64url characters: the digest's first 132 bits, plenty to tell representations apart.
  return `"${hash('sha256', `${json}\n${link}`, 'base64url').slice(0, 22)}"`;
}

/**
 * Whether `If-None-Match` names the current representation (RFC 9110 13.1.2):
 * `*`, or a list of entity tags compared weakly, so `W/"x"` matches `"x"`.
 */
export function noneMatchHolds(ifNoneMatch: string | undefined, tag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  if (ifNoneMatch.trim() === '*') return true;
  for (const [, opaque] of ifNoneMatch.matchAll(/(?:W\/)?("[^"]*")/g)) if (opaque === tag) return true;
  return false;
}

/**
 * A conditional route's 200, as serialized: tagged, or turned into a 304 without
 * a body when `If-None-Match` names the tag. Rate limits only peek at such a
 * request's quota (they read CONDITIONAL_GET) and leave a deferred charge: a
 * 304 drops it, a 200 pays it first, and its refusal goes to the exception
 * filter as the 429. Errors have paid it in the filter already.
 */
const answerConditionally: onSendHookHandler = (request, reply, payload, done) => {
  if (reply.statusCode !== 200 || typeof payload !== 'string') return done(null, payload);
  const link = reply.getHeader('link');
  const tag = entityTagOf(payload, Array.isArray(link) ? link.join(', ') : String(link ?? ''));
  const charge = takeDeferredCharge(request);
  if (noneMatchHolds(request.headers['if-none-match'], tag)) {
    reply.header('etag', tag).code(304).removeHeader('content-type');
    // No body; Fastify's own HEAD hook, which runs next on a HEAD route, measures a string and fails on null.
    return done(null, request.method === 'HEAD' ? '' : null);
  }
  const send = () => {
    reply.header('etag', tag);
    done(null, payload);
  };
  if (charge) charge().then(send, done);
  else send();
};

/** Gives each route declared @ConditionalGet() its onSend hook; call before routes are registered. */
export function registerConditionalGet(fastify: FastifyInstance): void {
  fastify.addHook('onRoute', (route) => {
    if ((route.config as ConditionalRouteConfig | undefined)?.conditionalGet !== true) return;
    // First: on the HEAD route Fastify derives from a GET, its own hook drops the body it would tag.
    route.onSend = [answerConditionally, ...hookList(route.onSend)];
  });
}

/**
 * Declares a GET route conditional: its 200 carries an `ETag`, and a request
 * whose `If-None-Match` names the current one gets 304 without a body and
 * without spending quota. The handler returns its result and sets any `Link`
 * itself. Declare the 304 with the route's other responses (`conditional: true`).
 */
export const ConditionalGet = (): MethodDecorator =>
  applyDecorators(
    SetMetadata(CONDITIONAL_GET, true),
    ExtendRouteConfig({ conditionalGet: true } satisfies ConditionalRouteConfig),
    ApiHeader({
      name: 'If-None-Match',
      required: false,
      description:
        'The `ETag` of a copy the client holds (or a list of them, or `*`): if it is still current the answer is 304 without a body, and spends no quota',
      schema: { type: 'string', example: '"3q2-7wAAAAAAAAAAAAAAAA"' },
    }),
  );
