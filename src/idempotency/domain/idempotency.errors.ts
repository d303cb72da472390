import { DomainError } from '../../errors/domain/domain-error';
import type { ErrorCode } from '../../errors/domain/error-code';

export const IDEMPOTENCY_KEY_IN_USE = 'idempotency_key_in_use' satisfies ErrorCode;
export const IDEMPOTENCY_KEY_REUSED = 'idempotency_key_reused' satisfies ErrorCode;

export class IdempotencyKeyReusedError extends DomainError {
  readonly code = IDEMPOTENCY_KEY_REUSED;

  constructor(by: 'body' | 'operation') {
    super(`This Idempotency-Key was already used ${by === 'body' ? 'with a different request body' : 'for another operation'}`);
  }
}

export class IdempotencyKeyInUseError extends DomainError {
  readonly code = IDEMPOTENCY_KEY_IN_USE;

  constructor() {
    super('A request with this Idempotency-Key is still being processed; retry later');
  }
}
