import { applyDecorators, type CallHandler, type ExecutionContext, Injectable, type NestInterceptor, SetMetadata, UseInterceptors } from '@nestjs/common';
import { ApiHeader, ApiResponse } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { hash } from 'node:crypto';
import { catchError, concatMap, from, map, type Observable } from 'rxjs';
import { ConditionalAnswers } from './conditional-answers';
import { DocumentRoute } from './route-docs';

/** Marks a @ConditionalGet() route; the rate limits read it to leave a 304 free. */
export const CONDITIONAL_GET = 'animal-store:conditional-get';

/**
 * The entity tag of a JSON answer: a digest of its body and of its next
 * page's `Link` (part of what the client holds), so it changes exactly when
 * either does.
 */
export function entityTagOf(json: string, link: string): string {
  // 22 base64url characters: the digest's first 132 bits, plenty to tell representations apart.
  return `"${hash('sha256', `${json}\n${link}`, 'base64url').slice(0, 22)}"`;
}

/** `If-None-Match: *`: a 304 for it tells the client no more than a 200 would (whether the resource exists), so it is charged as one. */
export function isAnyTag(ifNoneMatch: string): boolean {
  return ifNoneMatch.trim() === '*';
}

/**
 * Whether `If-None-Match` names the current representation (RFC 9110 13.1.2):
 * `*`, or a list of entity tags compared weakly, so `W/"x"` matches `"x"`.
 */
export function noneMatchHolds(ifNoneMatch: string | undefined, tag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  if (isAnyTag(ifNoneMatch)) return true;
  for (const [, opaque] of ifNoneMatch.matchAll(/(?:W\/)?("[^"]*")/g)) if (opaque === tag) return true;
  return false;
}

/**
 * Tags a @ConditionalGet() route's answer, or turns it into a 304 without a
 * body when `If-None-Match` names the tag. The body is serialized here, once,
 * to be tagged, and sent as it is. Whether the answer is a 304 is told to the
 * rate limits before it goes, for an error too (ConditionalAnswers).
 */
@Injectable()
export class ConditionalGetInterceptor implements NestInterceptor {
  constructor(private readonly answers: ConditionalAnswers) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<string | undefined> {
    const http = context.switchToHttp();
    const [request, reply] = [http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>()];
    // Most requests owe the rate limits nothing: answered at once, without waiting on them.
    if (!this.answers.awaits(request)) return next.handle().pipe(map((body: unknown) => answer(reply, representationOf(request, reply, body))));
    return next.handle().pipe(
      catchError((error: unknown) => from(this.answers.settle(request, false).then(() => Promise.reject(error)))),
      concatMap(async (body: unknown) => {
        const representation = representationOf(request, reply, body);
        await this.answers.settle(request, representation.notModified);
        return answer(reply, representation);
      }),
    );
  }
}

/** A route's answer as it is sent: its JSON, its tag, and whether the client holds it already. */
interface Representation {
  readonly json: string;
  readonly tag: string;
  readonly notModified: boolean;
}

function representationOf(request: FastifyRequest, reply: FastifyReply, body: unknown): Representation {
  const json = JSON.stringify(body);
  const link = reply.getHeader('Link');
  // Only the next page's link: a deprecated route's successor link says nothing of the resource, whose tag is its body alone.
  const next = (Array.isArray(link) ? link : [String(link ?? '')]).filter((value) => /rel="next"/.test(value));
  const tag = entityTagOf(json, next.join(', '));
  return { json, tag, notModified: noneMatchHolds(request.headers['if-none-match'], tag) };
}

/** The JSON with its tag, or nothing (a 304) when the client holds it already. */
function answer(reply: FastifyReply, { json, tag, notModified }: Representation): string | undefined {
  reply.header('ETag', tag);
  if (notModified) {
    reply.code(304);
    return undefined;
  }
  reply.type('application/json; charset=utf-8');
  return json;
}

/**
 * Declares a GET route conditional: its 200 carries an `ETag`, and a request
 * whose `If-None-Match` names the current one gets 304 without a body and
 * without spending plan quota. The handler returns its result and sets any `Link`
 * itself; the API document gets the header, the `ETag` and the 304 from here.
 */
export const ConditionalGet = (): MethodDecorator =>
  applyDecorators(
    SetMetadata(CONDITIONAL_GET, true),
    UseInterceptors(ConditionalGetInterceptor),
    ApiHeader({
      name: 'If-None-Match',
      required: false,
      description:
        'The `ETag` of a copy the client holds (or a list of them, or `*`): if it is still current the answer is 304 without a body, and spends no plan quota, only one of the `answers` window; a 304 for `*` is charged as a 200',
      schema: { type: 'string', example: '"3q2-7wAAAAAAAAAAAAAAAA"' },
    }),
    ApiResponse({
      status: 304,
      description:
        'Not modified: the `ETag` sent in `If-None-Match` is still current. No body, and no plan quota spent (one of the `answers` window; `*` is charged as a 200): the rate-limit headers show the quota as it stands',
    }),
    DocumentRoute('conditional-get', { successHeaders: { ETag: { $ref: '#/components/headers/ETag' } } }),
  );
