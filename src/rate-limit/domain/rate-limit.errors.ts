import { DomainError } from '../../errors/domain/domain-error';
import { type ErrorCode, RATE_LIMITED } from '../../errors/domain/error-code';

export const API_KEY_BANNED = 'api_key_banned' satisfies ErrorCode;

/** A rejection that tells the client when to come back. */
export abstract class RateLimitRejection extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

export class RateLimitedError extends RateLimitRejection {
  readonly code = RATE_LIMITED;

  constructor(retryAfterSeconds: number) {
    super(`Rate limit exceeded; retry after ${retryAfterSeconds} s (Retry-After)`, retryAfterSeconds);
  }
}

export class ApiKeyBannedError extends RateLimitRejection {
  readonly code = API_KEY_BANNED;

  constructor(retryAfterSeconds: number) {
    super(`Temporarily banned for sending while rate limited; retry after ${retryAfterSeconds} s (Retry-After)`, retryAfterSeconds);
  }
}
