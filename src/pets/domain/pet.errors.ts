import { DomainError, RetryLaterError } from '../../errors/domain/domain-error';
import { type ErrorCode, INVALID_TRANSITION, NOT_FOUND, PRECONDITION_FAILED, SERVICE_UNAVAILABLE } from '../../errors/domain/error-code';
import type { PetStatus } from './pet-status';

export const PET_RESERVED = 'pet_reserved' satisfies ErrorCode;

export class PetNotFoundError extends DomainError {
  readonly code = NOT_FOUND;

  constructor(readonly petId: number) {
    super(`No pet with id ${petId}`);
  }
}

/** A status move the pet's life does not allow, e.g. out of `sold`. */
export class InvalidTransitionError extends DomainError {
  readonly code = INVALID_TRANSITION;

  constructor(
    readonly from: PetStatus,
    readonly to: PetStatus,
  ) {
    super(`A pet cannot move from ${from} to ${to}`);
  }
}

/** The pet belongs to a placed order: its status is the order's to change, and it cannot be deleted. */
export class PetReservedError extends DomainError {
  readonly code = PET_RESERVED;

  constructor(readonly petId: number) {
    super(`Pet ${petId} is held by a placed order; deliver or cancel the order first`);
  }
}

/** The caller's precondition (If-Match) does not hold for the pet as it is now. */
export class PetPreconditionFailedError extends DomainError {
  readonly code = PRECONDITION_FAILED;

  constructor(readonly petId: number) {
    super(`Pet ${petId} has changed since the version named in If-Match; get it again`);
  }
}

/** The pet kept changing under a change sent without a precondition: rare enough that a retry settles it. */
export class PetBusyError extends RetryLaterError {
  readonly code = SERVICE_UNAVAILABLE;

  constructor(readonly petId: number) {
    super(`Pet ${petId} kept changing while this change was applied; retry after the time given in Retry-After`, 1);
  }
}
