import { DomainError } from '../../errors/domain-error';

export class IdempotencyKeyReusedError extends DomainError {
  readonly code = 'idempotency_key_reused';

  constructor() {
    super('This Idempotency-Key was already used with a different request body');
  }
}

export class IdempotencyKeyInUseError extends DomainError {
  readonly code = 'idempotency_key_in_use';

  constructor() {
    super('A request with this Idempotency-Key is still being processed; retry later');
  }
}
