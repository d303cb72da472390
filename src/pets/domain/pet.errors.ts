import { DomainError } from '../../errors/domain-error';
import { NOT_FOUND } from '../../errors/error-code';

export class PetNotFoundError extends DomainError {
  readonly code = NOT_FOUND;

  constructor(readonly petId: number) {
    super(`No pet with id ${petId}`);
  }
}
