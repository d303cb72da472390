import type { ErrorCode } from './error-code';

/**
 * Base of the errors that services and domain objects throw. It carries a stable
 * code; the global filter alone decides what HTTP makes of it.
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
  readonly code = 'validation_failed';
}
