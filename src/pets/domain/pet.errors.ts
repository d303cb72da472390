import { DomainError } from '../../errors/domain-error';

export class PetNotFoundError extends DomainError {
  readonly code = 'not_found';

  constructor(readonly petId: number) {
    super(`No pet with id ${petId}`);
  }
}
