import type { ErrorCode } from '../domain/error-code';

/** What HTTP makes of a code. */
export interface ErrorStatus {
  readonly status: number;
  /** What the Error body says when nothing more precise is known (also the API document's example). */
  readonly message: string;
}

/**
 * The one place an error code meets HTTP: its status and default message.
 * The global filter answers with it, and the API document's ErrorCode enum
 * and the README's table (held to it by a spec) list it.
 */
export const ERROR_STATUSES: Readonly<Record<ErrorCode, ErrorStatus>> = {
  bad_request: { status: 400, message: 'The request is malformed' },
  validation_failed: { status: 400, message: 'Request is invalid' },
  unauthorized: { status: 401, message: 'A valid API key is required: send Authorization: Bearer <key>' },
  insufficient_scope: { status: 403, message: 'The API key lacks the scope this operation needs' },
  not_found: { status: 404, message: 'Resource not found' },
  idempotency_key_in_use: { status: 409, message: 'A request with this Idempotency-Key is still being processed; retry later' },
  invalid_transition: { status: 409, message: 'The status cannot move this way' },
  pet_not_available: { status: 409, message: 'The pet is not available: another order holds it, or it is sold' },
  pet_reserved: { status: 409, message: 'A placed order holds this pet' },
  too_many_open_orders: { status: 409, message: 'The account holds as many placed orders as its plan allows; deliver or cancel one first' },
  precondition_failed: { status: 412, message: 'The resource has changed since the version named in If-Match' },
  payload_too_large: { status: 413, message: 'Request body is too large' },
  uri_too_long: { status: 414, message: 'The request path is too long' },
  unsupported_media_type: { status: 415, message: 'Content-Type must be application/json' },
  expectation_failed: { status: 417, message: 'The only expectation supported is Expect: 100-continue' },
  idempotency_key_reused: { status: 422, message: 'This Idempotency-Key was already used with a different request body or operation' },
  api_key_banned: { status: 429, message: 'API key temporarily banned for ignoring rate limits; retry after the time given in Retry-After' },
  rate_limited: { status: 429, message: 'Rate limit exceeded; retry after the time given in Retry-After' },
  request_header_fields_too_large: { status: 431, message: 'The request headers are too large' },
  internal_error: { status: 500, message: 'Internal server error' },
  service_unavailable: { status: 503, message: 'Service unavailable' },
};

/** Every code with its status and message, by status and then name, as the README's table and the API document's enum list them. */
export const ERROR_CODES: ReadonlyArray<ErrorStatus & { readonly code: ErrorCode }> = (Object.keys(ERROR_STATUSES) as ErrorCode[])
  .map((code) => ({ code, ...ERROR_STATUSES[code] }))
  .sort((a, b) => a.status - b.status || a.code.localeCompare(b.code));

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_STATUSES, code);
}

/** The one shape every error response has. */
export interface ErrorBody {
  code: string;
  message: string;
  status: number;
}

/** The body for a code; without a message, the code's own. */
export function errorBody(code: ErrorCode, message?: string): ErrorBody {
  const { status, message: ownMessage } = ERROR_STATUSES[code];
  return { code, message: message ?? ownMessage, status };
}
