import { DomainError } from '../../errors/domain-error';

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
  readonly code = 'rate_limited';

  constructor(retryAfterSeconds: number) {
    super(`Rate limit exceeded; retry after ${retryAfterSeconds} s (Retry-After)`, retryAfterSeconds);
  }
}

export class ApiKeyBannedError extends RateLimitRejection {
  readonly code = 'api_key_banned';

  constructor(retryAfterSeconds: number) {
    super(`Temporarily banned for sending while rate limited; retry after ${retryAfterSeconds} s (Retry-After)`, retryAfterSeconds);
  }
}
