import { DEFAULT_PET_STATUS, PetStatus } from './pet-status';

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

export const MAX_PET_NAME_LENGTH = 255;

/**
 * What a name may not hold: control characters (Unicode Cc) and the
 * bidirectional embeddings, overrides and isolates that can make a name read
 * otherwise than it is stored; joiners and marks stay allowed.
 */
const UNSAFE_NAME_CHARACTER = /[\p{Cc}\u202A-\u202E\u2066-\u2069]/u;

export function hasUnsafeNameCharacter(name: string): boolean {
  return UNSAFE_NAME_CHARACTER.test(name);
}

/** The pet as it will be stored: the default status applied. */
export function preparePet(input: NewPet): Omit<Pet, 'id'> {
  return { name: input.name, categoryId: input.categoryId, status: input.status ?? DEFAULT_PET_STATUS };
}
