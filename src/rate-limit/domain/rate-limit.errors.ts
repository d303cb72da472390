import { DomainError } from '../../errors/domain-error';
import type { RateLimitDecision } from './rate-limit-store';

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

/** The error a refused request is answered with; undefined when the request was accepted. */
export function rejectionFor(decision: RateLimitDecision): RateLimitRejection | undefined {
  if (decision.banned) return new ApiKeyBannedError(decision.retryAfterSeconds);
  if (!decision.allowed) return new RateLimitedError(decision.retryAfterSeconds);
  return undefined;
}
