import { DomainError } from '../../errors/domain-error';
import { NOT_FOUND, UNAUTHORIZED, VALIDATION_FAILED } from '../../errors/error-code';

export class ApiKeyNotFoundError extends DomainError {
  readonly code = NOT_FOUND;

  constructor(readonly keyId: number) {
    super(`No API key with id ${keyId}`);
  }
}

export class InvalidApiKeyRequestError extends DomainError {
  readonly code = VALIDATION_FAILED;
}

/** Missing, malformed, unknown or revoked: deliberately one error, so callers cannot tell which. */
export class UnauthorizedError extends DomainError {
  readonly code = UNAUTHORIZED;

  constructor() {
    super('A valid API key is required: send Authorization: Bearer <key>');
  }
}

/** Another command created the account between our look-up and our insert; the caller looks again and joins it. */
export class AccountCreatedMeanwhileError extends DomainError {
  readonly code = VALIDATION_FAILED;

  constructor(readonly accountName: string) {
    super(`account "${accountName}" was created by another command at the same moment; try again`);
  }
}
