/** Every `code` an Error body can carry, with the HTTP status it travels with. */
export const ERROR_STATUS = {
  validation_failed: 400,
  unauthorized: 401,
  not_found: 404,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  api_key_banned: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** The one shape every error response has. */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  status: number;
}

export function errorBody(code: ErrorCode, message: string): ErrorBody {
  return { code, message, status: ERROR_STATUS[code] };
}
