import { Pet } from '../domain/pet';

/** The wire form of a Pet: exactly the specification's fields, ids as JSON numbers. */
export function toPetResponse(pet: Pet): Pet {
  return { id: pet.id, name: pet.name, categoryId: pet.categoryId, status: pet.status };
}
