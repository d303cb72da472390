import { applyDecorators, type CallHandler, type ExecutionContext, Injectable, type NestInterceptor, UseInterceptors } from '@nestjs/common';
import { ApiHeader, ApiResponse } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { map, type Observable } from 'rxjs';
import { PRECONDITION_FAILED } from '../errors/domain/error-code';
import { errorBody } from '../errors/http/error-statuses';
import { ErrorResponse } from '../errors/http/error.response';
import { entityTagOf } from './conditional-get';
import { DocumentRoute } from './route-docs';

/** The tag of one resource's JSON body alone, so its create, its get and its change answer the same tag for the same resource. */
export function entityTagOfBody(body: unknown): string {
  return entityTagOf(JSON.stringify(body), '');
}

/**
 * Whether `If-Match` holds for the current resource's tag (RFC 9110 13.1.1):
 * `*` holds for any current resource; otherwise one listed tag must equal it
 * by strong comparison, so a weak tag never matches.
 */
export function matchHolds(ifMatch: string, tag: string): boolean {
  if (ifMatch.trim() === '*') return true;
  for (const [, weak, opaque] of ifMatch.matchAll(/(W\/)?("[^"]*")/g)) if (!weak && opaque === tag) return true;
  return false;
}

/** The request's `If-Match` as a condition on the resource as it is now, or undefined when the request has none. */
export function ifMatchCondition(request: FastifyRequest): ((current: unknown) => boolean) | undefined {
  const ifMatch = request.headers['if-match'];
  if (ifMatch === undefined) return undefined;
  return (current) => matchHolds(ifMatch, entityTagOfBody(current));
}

/** Tags a successful answer's body (ETag), a replayed one too. */
@Injectable()
export class EntityTagInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    return next.handle().pipe(
      map((body: unknown) => {
        if (body !== undefined) reply.header('ETag', entityTagOfBody(body));
        return body;
      }),
    );
  }
}

/**
 * The route answers one resource, whose `ETag` is the tag of the resource
 * alone: the same from its create, its get and its change. Put it below
 * @Idempotent(): the decorator applied first wraps the other, so a replayed answer is tagged as well.
 */
export const TaggedEntity = (): MethodDecorator =>
  applyDecorators(UseInterceptors(EntityTagInterceptor), DocumentRoute('tagged-entity', { successHeaders: { ETag: { $ref: '#/components/headers/ETag' } } }));

/**
 * Documents a change that honours `If-Match`: the handler passes
 * ifMatchCondition() to its service, which answers 412 when it fails.
 */
export const IfMatch = (): MethodDecorator =>
  applyDecorators(
    ApiHeader({
      name: 'If-Match',
      required: false,
      description:
        'The `ETag` of the version the change was made from (or a list of them, or `*`): if the resource has changed since, the answer is 412 and nothing changes. Without it, the last write wins',
      schema: { type: 'string', example: '"3q2-7wAAAAAAAAAAAAAAAA"' },
    }),
    ApiResponse({
      status: 412,
      description: '`precondition_failed`: `If-Match` names no current version of the resource; get it again and redo the change',
      type: ErrorResponse,
      example: errorBody(PRECONDITION_FAILED),
    }),
  );
