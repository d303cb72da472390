import { type ErrorCode, VALIDATION_FAILED } from './error-code';

/**
 * Base of the errors that services and domain objects throw. It carries a
 * stable code and a message; what HTTP makes of the code is errors/http's alone.
 */
export abstract class DomainError extends Error {
  abstract readonly code: ErrorCode;

  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Input that breaks a rule of the interface: a field, a query parameter, a cursor. */
export class InvalidInputError extends DomainError {
  readonly code = VALIDATION_FAILED;
}

/** A refusal that tells the client when to come back: its answer carries `Retry-After`. */
export abstract class RetryLaterError extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}
