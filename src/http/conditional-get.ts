import { applyDecorators, CallHandler, ExecutionContext, Injectable, NestInterceptor, SetMetadata, UseInterceptors } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import { mergeMap, Observable } from 'rxjs';
import { takeDeferredCharge } from './request-context';

export const CONDITIONAL_GET = 'animal-store:conditional-get';

/**
 * The entity tag of a JSON answer: a digest of its body and of its `Link`
 * header (a page's next link is part of what the client holds), so it
 * changes exactly when either does.
 */
export function entityTagOf(json: string, link: string): string {
  return `"${createHash('sha256').update(json).update('\n').update(link).digest().subarray(0, 16).toString('base64url')}"`;
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
 * Answers the route's 200 with an `ETag` computed from the handler's JSON
 * result and the `Link` header the handler set, and a request whose
 * `If-None-Match` names it with 304 and no body. Rate limits only peek at such
 * a request's quota (they read CONDITIONAL_GET) and leave a deferred charge:
 * a 304 drops it, a 200 pays it first, and becomes the 429 when it cannot.
 * Errors pay it in the exception filter.
 */
@Injectable()
export class ConditionalGetInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    return next.handle().pipe(mergeMap((result: unknown) => answer(request, reply, result)));
  }
}

async function answer(request: FastifyRequest, reply: FastifyReply, result: unknown): Promise<string | undefined> {
  // Serialized once, here, for the tag and as the body Fastify sends unchanged.
  const json = JSON.stringify(result);
  const link = reply.getHeader('link');
  const tag = entityTagOf(json, Array.isArray(link) ? link.join(', ') : String(link ?? ''));
  const charge = takeDeferredCharge(request);
  if (noneMatchHolds(request.headers['if-none-match'], tag)) {
    void reply.header('etag', tag).status(304);
    return undefined;
  }
  if (charge) await charge();
  void reply.header('etag', tag).type('application/json; charset=utf-8');
  return json;
}

/**
 * Declares a GET route conditional: its 200 carries an `ETag`, and a request
 * whose `If-None-Match` names the current one gets 304 without a body and
 * without spending quota. The handler returns the JSON body and sets any
 * `Link` itself. Declare the 304 with the route's other responses
 * (`conditional: true`).
 */
export const ConditionalGet = (): MethodDecorator =>
  applyDecorators(
    SetMetadata(CONDITIONAL_GET, true),
    UseInterceptors(ConditionalGetInterceptor),
    ApiHeader({
      name: 'If-None-Match',
      required: false,
      description:
        'The `ETag` of a copy the client holds (or a list of them, or `*`): if it is still current the answer is 304 without a body, and spends no quota',
      schema: { type: 'string', example: '"3q2-7wAAAAAAAAAAAAAAAA"' },
    }),
  );
