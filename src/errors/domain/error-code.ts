/**
 * Every `code` an Error body can carry: the stable names clients program
 * against. A domain error carries one of them and a message, nothing of HTTP;
 * the status each code travels with is errors/http/error-statuses.ts's, which
 * the compiler holds to this list.
 */
export type ErrorCode =
  // Refusals any request can meet, whichever module it reaches.
  | 'bad_request'
  | 'validation_failed'
  | 'unauthorized'
  | 'not_found'
  | 'invalid_transition'
  | 'precondition_failed'
  | 'payload_too_large'
  | 'uri_too_long'
  | 'unsupported_media_type'
  | 'expectation_failed'
  | 'rate_limited'
  | 'request_header_fields_too_large'
  | 'internal_error'
  | 'service_unavailable'
  // The modules' own, each named beside its errors.
  | 'insufficient_scope'
  | 'idempotency_key_in_use'
  | 'idempotency_key_reused'
  | 'pet_not_available'
  | 'pet_reserved'
  | 'too_many_open_orders'
  | 'api_key_banned';

export const VALIDATION_FAILED = 'validation_failed' satisfies ErrorCode;
export const BAD_REQUEST = 'bad_request' satisfies ErrorCode;
export const UNAUTHORIZED = 'unauthorized' satisfies ErrorCode;
export const NOT_FOUND = 'not_found' satisfies ErrorCode;
// A status machine's refusal, met by the pets' and the orders' own moves alike.
export const INVALID_TRANSITION = 'invalid_transition' satisfies ErrorCode;
export const PRECONDITION_FAILED = 'precondition_failed' satisfies ErrorCode;
export const PAYLOAD_TOO_LARGE = 'payload_too_large' satisfies ErrorCode;
export const URI_TOO_LONG = 'uri_too_long' satisfies ErrorCode;
export const UNSUPPORTED_MEDIA_TYPE = 'unsupported_media_type' satisfies ErrorCode;
export const EXPECTATION_FAILED = 'expectation_failed' satisfies ErrorCode;
export const RATE_LIMITED = 'rate_limited' satisfies ErrorCode;
export const REQUEST_HEADER_FIELDS_TOO_LARGE = 'request_header_fields_too_large' satisfies ErrorCode;
export const INTERNAL_ERROR = 'internal_error' satisfies ErrorCode;
export const SERVICE_UNAVAILABLE = 'service_unavailable' satisfies ErrorCode;
