/** Every `code` an Error body can carry, with the HTTP status it travels with. */
export const ERROR_STATUS = {
  validation_failed: 400,
  bad_request: 400,
  unauthorized: 401,
  not_found: 404,
  idempotency_key_in_use: 409,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  expectation_failed: 417,
  idempotency_key_reused: 422,
  rate_limited: 429,
  request_header_fields_too_large: 431,
  api_key_banned: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** What an error body says when nothing more precise is known (the API document's examples too). */
export const MESSAGE_BY_CODE: Record<ErrorCode, string> = {
  validation_failed: 'Request is invalid',
  bad_request: 'The request is malformed',
  unauthorized: 'A valid API key is required: send Authorization: Bearer <key>',
  not_found: 'Resource not found',
  idempotency_key_in_use: 'A request with this Idempotency-Key is still being processed; retry later',
  payload_too_large: 'Request body is too large',
  uri_too_long: 'The request path is too long',
  unsupported_media_type: 'Content-Type must be application/json',
  expectation_failed: 'The only expectation supported is Expect: 100-continue',
  idempotency_key_reused: 'This Idempotency-Key was already used with a different request body',
  rate_limited: 'Rate limit exceeded; retry after the time given in Retry-After',
  request_header_fields_too_large: 'The request headers are too large',
  api_key_banned: 'API key temporarily banned for ignoring rate limits; retry after the time given in Retry-After',
  internal_error: 'Internal server error',
  service_unavailable: 'Service unavailable',
};

/** The one shape every error response has. */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  status: number;
}

export function errorBody(code: ErrorCode, message: string): ErrorBody {
  return { code, message, status: ERROR_STATUS[code] };
}
