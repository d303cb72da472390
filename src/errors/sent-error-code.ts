import type { ErrorCode } from './error-code';

const sent = new WeakMap<object, ErrorCode>();

/**
 * The filter notes the code of each Error body it sends, so that observers of
 * the response (metrics) can tell a `rate_limited` 429 from an `api_key_banned`
 * one without knowing who raised it or parsing the body.
 */
export function noteErrorCode(response: object, code: ErrorCode): void {
  sent.set(response, code);
}

export function errorCodeSentOn(response: object): ErrorCode | undefined {
  return sent.get(response);
}
