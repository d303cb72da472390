/**
 * Every `code` an Error body can carry. A module declares the codes of its own
 * errors with defineErrorCode, beside those errors; this module declares the
 * codes any HTTP request can meet whichever module it reaches. The API
 * document's ErrorCode enum and the README's table are read from here.
 */
export interface ErrorCodeDefinition {
  readonly code: string;
  /** The HTTP status the code travels with. */
  readonly status: number;
  /** What the Error body says when nothing more precise is known (also the API document's example). */
  readonly message: string;
}

const definitions = new Map<string, ErrorCodeDefinition>();

/** Declares a code once, with its status and default message, and returns it for an error class's `code`. */
export function defineErrorCode<const C extends string>(code: C, status: number, message: string): C {
  const existing = definitions.get(code);
  if (existing && (existing.status !== status || existing.message !== message)) {
    throw new Error(`Error code ${code} is declared twice, differently`);
  }
  definitions.set(code, { code, status, message });
  return code;
}

export function errorCodeDefinition(code: string): ErrorCodeDefinition | undefined {
  return definitions.get(code);
}

/** Every declared code, by status and then name, so documents derived from it do not depend on import order. */
export function declaredErrorCodes(): ErrorCodeDefinition[] {
  return [...definitions.values()].sort((a, b) => a.status - b.status || a.code.localeCompare(b.code));
}

// The codes of requests refused by HTTP itself or by the framework, before or outside any module's own rules.
export const VALIDATION_FAILED = defineErrorCode('validation_failed', 400, 'Request is invalid');
export const BAD_REQUEST = defineErrorCode('bad_request', 400, 'The request is malformed');
export const UNAUTHORIZED = defineErrorCode('unauthorized', 401, 'A valid API key is required: send Authorization: Bearer <key>');
export const NOT_FOUND = defineErrorCode('not_found', 404, 'Resource not found');
// A status machine's refusal, met by the pets' and the orders' own moves alike.
export const INVALID_TRANSITION = defineErrorCode('invalid_transition', 409, 'The status cannot move this way');
export const PRECONDITION_FAILED = defineErrorCode('precondition_failed', 412, 'The resource has changed since the version named in If-Match');
export const PAYLOAD_TOO_LARGE = defineErrorCode('payload_too_large', 413, 'Request body is too large');
export const URI_TOO_LONG = defineErrorCode('uri_too_long', 414, 'The request path is too long');
export const UNSUPPORTED_MEDIA_TYPE = defineErrorCode('unsupported_media_type', 415, 'Content-Type must be application/json');
export const EXPECTATION_FAILED = defineErrorCode('expectation_failed', 417, 'The only expectation supported is Expect: 100-continue');
export const RATE_LIMITED = defineErrorCode('rate_limited', 429, 'Rate limit exceeded; retry after the time given in Retry-After');
export const REQUEST_HEADER_FIELDS_TOO_LARGE = defineErrorCode('request_header_fields_too_large', 431, 'The request headers are too large');
export const INTERNAL_ERROR = defineErrorCode('internal_error', 500, 'Internal server error');
export const SERVICE_UNAVAILABLE = defineErrorCode('service_unavailable', 503, 'Service unavailable');

/** The one shape every error response has. */
export interface ErrorBody {
  code: string;
  message: string;
  status: number;
}

/** The body for a declared code; without a message, the code's own. */
export function errorBody(code: string, message?: string): ErrorBody {
  const definition = definitions.get(code);
  if (!definition) throw new Error(`Error code ${code} was never declared with defineErrorCode`);
  return { code, message: message ?? definition.message, status: definition.status };
}
