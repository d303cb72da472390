import { DomainError } from '../../errors/domain-error';
import { defineErrorCode } from '../../errors/error-code';

export const IDEMPOTENCY_KEY_IN_USE = defineErrorCode(
  'idempotency_key_in_use',
  409,
  'A request with this Idempotency-Key is still being processed; retry later',
);
export const IDEMPOTENCY_KEY_REUSED = defineErrorCode(
  'idempotency_key_reused',
  422,
  'This Idempotency-Key was already used with a different request body or operation',
);

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
