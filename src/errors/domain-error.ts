import { VALIDATION_FAILED } from './error-code';

/**
 * Base of the errors that services and domain objects throw. It carries a
 * stable code, declared with defineErrorCode; the global filter alone decides
 * what HTTP makes of it.
 */
export abstract class DomainError extends Error {
  abstract readonly code: string;

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
