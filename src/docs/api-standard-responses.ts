import { applyDecorators, Type } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import type { HeadersObject } from '@nestjs/swagger';
import { errorBody } from '../errors/error-code';
import { ErrorResponse } from '../errors/error.response';

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
      'Every window of the caller (IETF draft-ietf-httpapi-ratelimit-headers, a structured-field List): its name, `q` the requests allowed and `w` its length in seconds. A route with its own limit for a window names it `<window>@<operationId>`',
    schema: { type: 'string', pattern: '^"[^"]+";q=\\d+;w=\\d+(, "[^"]+";q=\\d+;w=\\d+)*$' },
    example: '"minute";q=60;w=60, "day";q=1000;w=86400',
  },
  RateLimit: {
    required: true,
    description:
      'Each window of `RateLimit-Policy` now: `r` the requests left and `t` the whole seconds until it resets. While banned, every window has `r=0` and `t` the seconds left of the ban',
    schema: { type: 'string', pattern: '^"[^"]+";r=\\d+;t=\\d+(, "[^"]+";r=\\d+;t=\\d+)*$' },
    example: '"minute";r=59;t=60, "day";r=999;t=86400',
  },
};

const RATE_LIMIT_HEADERS: HeadersObject = Object.fromEntries(
  Object.keys(RATE_LIMIT_HEADER_COMPONENTS).map((name) => [name, { $ref: `#/components/headers/${name}` }]),
);

type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 500;

/** Each example is an Error body: its code, and a message (the code's own when none is given). */
type Example = readonly [code: string, message?: string];

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
  403: {
    example: ['insufficient_scope', 'This API key lacks the scope pets:write, which this operation needs'],
    description: '`insufficient_scope`: the API key is valid but lacks the scope the operation needs (`x-required-scopes`)',
    headers: {
      'WWW-Authenticate': {
        required: true,
        description: 'RFC 6750: the error and the scope the operation needs',
        schema: { type: 'string', pattern: '^Bearer realm="animal-store", error="insufficient_scope", scope="[a-z:]+"$' },
      },
    },
  },
  404: { example: ['not_found'], description: '`not_found`: no pet with that id' },
  409: {
    example: ['idempotency_key_in_use'],
    description:
      '`idempotency_key_in_use`: a request with the same `Idempotency-Key` is still being processed, or was lost with its instance ' +
      'less than `IDEMPOTENCY_LEASE_SECONDS` ago; retry later with the same key and body',
  },
  413: {
    example: ['payload_too_large'],
    description: '`payload_too_large`: the body is larger than the configured limit (16 KiB by default)',
  },
  415: {
    example: ['unsupported_media_type'],
    description: '`unsupported_media_type`: the body is not sent as `application/json`',
  },
  422: {
    example: ['idempotency_key_reused'],
    description: '`idempotency_key_reused`: the `Idempotency-Key` was already used with a different body',
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
};

/** On a @ConditionalGet() operation's 200 and 304; declared once under components.headers. */
export const ETAG_HEADER_COMPONENT: HeadersObject = {
  ETag: {
    required: true,
    description: 'RFC 9110: the tag of this representation (the body and its `Link`); send it back in `If-None-Match` to be answered 304 while it is current',
    schema: { type: 'string', pattern: '^"[A-Za-z0-9_-]{22}"$', example: '"3q2-7wAAAAAAAAAAAAAAAA"' },
  },
};

const ETAG_HEADERS: HeadersObject = { ETag: { $ref: '#/components/headers/ETag' } };

export interface StandardResponses {
  success: { status: 200 | 201; description: string; type: Type<unknown> | [Type<unknown>]; headers?: HeadersObject };
  /** Error statuses this operation can send besides 400 (see takesInput), 401, 429 and 500, which every operation can. */
  errors?: Array<403 | 404 | 409 | 413 | 415 | 422>;
  /** Headers on every response of the operation, errors included. */
  headers?: HeadersObject;
  /** A @ConditionalGet() operation: its success carries an `ETag`, and it may answer 304. */
  conditional?: boolean;
  /** False for an operation without parameters, query or body, which never answers 400. */
  takesInput?: boolean;
}

/**
 * Every response an operation really sends: its success, the errors every
 * operation shares plus its own, each error with the Error body, and on all of
 * them the rate-limit headers and the operation's own.
 */
export function ApiStandardResponses({ success, errors = [], headers = {}, conditional = false, takesInput = true }: StandardResponses): MethodDecorator {
  const statuses: ErrorStatus[] = [...(takesInput ? [400 as const] : []), 401, 429, 500, ...errors];
  const etag = conditional ? ETAG_HEADERS : {};
  return applyDecorators(
    ApiResponse({
      status: success.status,
      description: success.description,
      type: success.type,
      headers: { ...success.headers, ...etag, ...headers, ...RATE_LIMIT_HEADERS },
    }),
    ...(conditional
      ? [
          ApiResponse({
            status: 304,
            description:
              'Not modified: the `ETag` sent in `If-None-Match` is still current. No body, and no quota spent: the rate-limit headers show the quota as it stands',
            headers: { ...etag, ...headers, ...RATE_LIMIT_HEADERS },
          }),
        ]
      : []),
    ...statuses
      .sort((a, b) => a - b)
      .map((status) =>
        ApiResponse({
          status,
          description: ERROR_RESPONSES[status].description,
          // Built when a route is declared, by which time the module that owns the code has declared it.
          example: errorBody(...ERROR_RESPONSES[status].example),
          type: ErrorResponse,
          headers: { ...ERROR_RESPONSES[status].headers, ...headers, ...RATE_LIMIT_HEADERS },
        }),
      ),
  );
}
