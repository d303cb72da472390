import { DomainError } from '../../errors/domain/domain-error';
import { type ErrorCode, INVALID_TRANSITION, NOT_FOUND } from '../../errors/domain/error-code';
import type { OrderAction, OrderStatus } from './order';

export const PET_NOT_AVAILABLE = 'pet_not_available' satisfies ErrorCode;
export const TOO_MANY_OPEN_ORDERS = 'too_many_open_orders' satisfies ErrorCode;

/** No order with that id among the caller's account's: another account's order is not found either. */
export class OrderNotFoundError extends DomainError {
  readonly code = NOT_FOUND;

  constructor(readonly orderId: number) {
    super(`No order with id ${orderId}`);
  }
}

/** The pet to order does not exist. */
export class OrderedPetNotFoundError extends DomainError {
  readonly code = NOT_FOUND;

  constructor(readonly petId: number) {
    super(`No pet with id ${petId}`);
  }
}

export class PetNotAvailableError extends DomainError {
  readonly code = PET_NOT_AVAILABLE;

  constructor(readonly petId: number) {
    super(`Pet ${petId} is not available: another order holds it, or it is sold`);
  }
}

export class TooManyOpenOrdersError extends DomainError {
  readonly code = TOO_MANY_OPEN_ORDERS;

  constructor(readonly cap: number) {
    super(`The account holds ${cap} placed orders, as many as its plan allows; deliver or cancel one first`);
  }
}

export class InvalidOrderTransitionError extends DomainError {
  readonly code = INVALID_TRANSITION;

  constructor(
    readonly orderId: number,
    readonly status: OrderStatus,
    readonly action: OrderAction,
  ) {
    super(`Order ${orderId} is ${status} and cannot be ${action === 'deliver' ? 'delivered' : 'cancelled'}`);
  }
}
