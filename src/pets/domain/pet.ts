import { InvalidTransitionError } from './pet.errors';
import { canMoveStatus, DEFAULT_PET_STATUS, PetStatus } from './pet-status';

/** An animal in the catalogue. Ids are positive integers no larger than 2^53 - 1. */
export interface Pet {
  readonly id: number;
  readonly name: string;
  readonly categoryId: number;
  readonly status: PetStatus;
}

export interface NewPet {
  readonly name: string;
  readonly categoryId: number;
  readonly status?: PetStatus;
}

/** What a change may set; an absent field keeps its value. */
export type PetChanges = Partial<Pick<Pet, 'name' | 'categoryId' | 'status'>>;

export const MAX_PET_NAME_LENGTH = 255;

/** The pet as it will be stored: the default status applied. */
export function preparePet(input: NewPet): Omit<Pet, 'id'> {
  return { name: input.name, categoryId: input.categoryId, status: input.status ?? DEFAULT_PET_STATUS };
}

/** The pet with the changes applied, its fields in the order every Pet has them; a status moves only as the pet's life allows. */
export function changePet(pet: Pet, changes: PetChanges): Pet {
  const status = changes.status ?? pet.status;
  if (!canMoveStatus(pet.status, status)) throw new InvalidTransitionError(pet.status, status);
  return { id: pet.id, name: changes.name ?? pet.name, categoryId: changes.categoryId ?? pet.categoryId, status };
}

export function isSamePet(a: Pet, b: Pet): boolean {
  return a.id === b.id && a.name === b.name && a.categoryId === b.categoryId && a.status === b.status;
}
