import { applyDecorators, Type } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import type { HeadersObject, OpenAPIObject, ResponseObject } from '@nestjs/swagger';
import type { ErrorCode } from '../errors/domain/error-code';
import { ERROR_STATUSES, errorBody } from '../errors/http/error-statuses';
import { ErrorResponse } from '../errors/http/error.response';

/**
 * Sent on every response under /v1, errors included: the X- trio for the window
 * that binds first, the IETF fields for every window. Declared once under
 * components.headers and referenced by every response.
 */
export const RATE_LIMIT_HEADER_COMPONENTS: HeadersObject = {
  'X-RateLimit-Limit': {
    required: true,
    description: 'Requests allowed in the window that binds first (per minute or per day)',
    schema: { type: 'integer', minimum: 1 },
  },
  'X-RateLimit-Remaining': {
    required: true,
    description: 'Requests left in that window',
    schema: { type: 'integer', minimum: 0 },
  },
  'X-RateLimit-Reset': {
    required: true,
    description: 'Unix time, in seconds, at which that window resets',
    schema: { type: 'integer', format: 'int64', minimum: 0 },
  },
  'RateLimit-Policy': {
    required: true,
    description:
      'Every window of the caller (IETF draft-ietf-httpapi-ratelimit-headers, a structured-field List): its name, `q` the requests allowed and `w` its length in seconds. A route with its own limit for a window names it `<window>@<operationId>`. ' +
      'A 429 of the concurrency cap adds `"concurrency";q=<cap>;qu="concurrent-requests"`: the requests the caller may have in flight at once',
    schema: { type: 'string', pattern: '^"[^"]+";q=\\d+;w=\\d+(, "[^"]+";q=\\d+;w=\\d+)*(, "concurrency";q=\\d+;qu="concurrent-requests")?$' },
    example: '"minute";q=60;w=60, "day";q=1000;w=86400, "answers";q=600;w=60',
  },
  RateLimit: {
    required: true,
    description:
      'Each window of `RateLimit-Policy` now: `r` the requests left and `t` the whole seconds until it resets. While banned, every window has `r=0` and `t` the seconds left of the ban',
    schema: { type: 'string', pattern: '^"[^"]+";r=\\d+;t=\\d+(, "[^"]+";r=\\d+;t=\\d+)*$' },
    example: '"minute";r=59;t=60, "day";r=999;t=86400, "answers";r=599;t=60',
  },
};

export const RATE_LIMIT_HEADERS: HeadersObject = Object.fromEntries(
  Object.keys(RATE_LIMIT_HEADER_COMPONENTS).map((name) => [name, { $ref: `#/components/headers/${name}` }]),
);

type ErrorStatus = 400 | 401 | 413 | 415 | 429 | 500 | 503;

/** Each example is an Error body: its code, and a message (the code's own when none is given). */
type Example = readonly [code: ErrorCode, message?: string];

const ERROR_RESPONSES: Record<ErrorStatus, { description: string; example: Example; headers?: HeadersObject }> = {
  400: {
    example: ['validation_failed', 'categoryId must be an integer from 1 to 9007199254740991'],
    description:
      '`validation_failed`: a field, query parameter, path parameter or cursor is invalid, or the body is missing or not a JSON object',
  },
  401: {
    example: ['unauthorized'],
    description: '`unauthorized`: the API key is missing, malformed, unknown or revoked',
    headers: {
      'WWW-Authenticate': {
        required: true,
        description: 'The scheme to authenticate with',
        schema: { type: 'string', enum: ['Bearer realm="animal-store"'] },
      },
    },
  },
  413: {
    example: ['payload_too_large'],
    description: '`payload_too_large`: the body is larger than the configured limit (16 KiB by default)',
  },
  415: {
    example: ['unsupported_media_type'],
    description: '`unsupported_media_type`: the body is not sent as `application/json` (or, for a change, `application/merge-patch+json`)',
  },
  429: {
    example: ['rate_limited'],
    description:
      '`rate_limited`: over the plan\'s per-minute or per-day quota; or `api_key_banned`: the key kept sending while limited and is banned for a while',
    headers: {
      'Retry-After': {
        required: true,
        description: 'Whole seconds to wait before a request would be accepted',
        schema: { type: 'integer', minimum: 1 },
      },
    },
  },
  500: {
    example: ['internal_error'],
    description: '`internal_error`: an unexpected failure; the cause is logged on the server only',
  },
  503: {
    example: ['service_unavailable', 'The database is unavailable; retry after the time given in Retry-After'],
    description:
      '`service_unavailable`: the database cannot serve for now (out of reach, no connection or no answer within its bound, a node lost), the service is overloaded, or this instance is shutting down',
    headers: {
      'Retry-After': {
        required: true,
        description: 'Whole seconds to wait before trying again',
        schema: { type: 'integer', minimum: 1 },
      },
    },
  },
};

/** The `ETag` of a @ConditionalGet() or @TaggedEntity() operation's answers; declared once under components.headers. */
export const ETAG_HEADER_COMPONENT: HeadersObject = {
  ETag: {
    required: true,
    description:
      'RFC 9110: the tag of this representation (the body, and a page\'s next `Link`); one pet has one tag, from its create, get and change alike. Send it back in `If-None-Match` to be answered 304 while it is current, or in `If-Match` to change only that version',
    schema: { type: 'string', pattern: '^"[A-Za-z0-9_-]{22}"$', example: '"3q2-7wAAAAAAAAAAAAAAAA"' },
  },
};

export interface StandardResponses {
  /** Absent for an operation that answers without a body, which documents its success itself (e.g. a 204). */
  success?: { status: 200 | 201; description: string; type: Type<unknown> | [Type<unknown>]; headers?: HeadersObject };
  /** The errors of the operation's own (its service's), besides those of the way in and of its route decorators. */
  errors?: OwnError[];
}

/** An error the operation's own service raises: its code (whose status errors/http gives), and when. */
export interface OwnError {
  readonly code: ErrorCode;
  readonly when: string;
}

/**
 * An operation's success and its own errors, with the errors of the way in
 * that every operation can meet: 401, 429, 500 and 503. Those of its inputs (400,
 * 413, 415) are added where the document is built, from the parameters and
 * body it lists (inputErrorResponses). The route decorators document what
 * they add themselves, and the document puts the rate-limit headers on every
 * response (docs/api-docs.ts).
 */
export function ApiStandardResponses({ success, errors = [] }: StandardResponses): MethodDecorator {
  const statuses: ErrorStatus[] = [401, 429, 500, 503];
  return (target, key, descriptor) => {
    applyDecorators(
      ...(success ? [ApiResponse({ status: success.status, description: success.description, type: success.type, headers: success.headers })] : []),
      ...statuses.map((status) =>
        ApiResponse({
          status,
          description: ERROR_RESPONSES[status].description,
          example: errorBody(...ERROR_RESPONSES[status].example),
          type: ErrorResponse,
          headers: ERROR_RESPONSES[status].headers,
        }),
      ),
      // Built when a route is declared, by which time the module that owns the code has declared it.
      ...errors.map(({ code, when }) => ApiResponse({ status: ERROR_STATUSES[code].status, description: `\`${code}\`: ${when}`, example: errorBody(code), type: ErrorResponse })),
    )(target, key, descriptor);
  };
}

type Operation = NonNullable<OpenAPIObject['paths'][string]['get']>;

/** The errors of an operation's inputs: 400 when it takes a body, a query or a path parameter, and 413 and 415 when it takes a body. */
export function inputErrorResponses(operation: Operation): Record<string, ResponseObject> {
  const takesBody = operation.requestBody !== undefined;
  const takesInput = takesBody || (operation.parameters ?? []).some((parameter) => 'in' in parameter && (parameter.in === 'query' || parameter.in === 'path'));
  const statuses: ErrorStatus[] = [...(takesInput ? [400 as const] : []), ...(takesBody ? [413 as const, 415 as const] : [])];
  return Object.fromEntries(
    statuses.map((status) => [
      String(status),
      {
        description: ERROR_RESPONSES[status].description,
        // Where @ApiResponse puts them: the document adds the rate-limit headers to every response.
        headers: {},
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' }, example: errorBody(...ERROR_RESPONSES[status].example) } },
      },
    ]),
  );
}
