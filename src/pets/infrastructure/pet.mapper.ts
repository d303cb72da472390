import { Pet } from '../domain/pet';
import { PetOrmEntity } from './pet.orm-entity';

/** Keeps the table's row apart from the domain Pet, which is also the pet's wire form. */
export const PetMapper = {
  /** MySQL hands a BIGINT back as a string unless the pool asks for numbers; either way the domain gets numbers. */
  toDomain(entity: PetOrmEntity): Pet {
    return {
      id: Number(entity.id),
      name: entity.name,
      categoryId: Number(entity.categoryId),
      status: entity.status,
    };
  },
};
