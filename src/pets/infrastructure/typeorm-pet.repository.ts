import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { FindOptionsWhere, MoreThan, Repository } from 'typeorm';
import { Pet } from '../domain/pet';
import { PetPageQuery, PetRepository } from '../domain/pet.repository';
import { PetMapper } from './pet.mapper';
import { PetOrmEntity } from './pet.orm-entity';

/** The pet store on TypeORM's repository of the `pets` table; the same calls serve SQLite and MySQL. */
@Injectable()
export class TypeOrmPetRepository extends PetRepository {
  constructor(@InjectRepository(PetOrmEntity) private readonly pets: Repository<PetOrmEntity>) {
    super();
  }

  async create(pet: Omit<Pet, 'id'>): Promise<Pet> {
    const { identifiers } = await this.pets.insert(PetMapper.toPersistence(pet));
    return { id: Number(identifiers[0].id), ...pet };
  }

  async findById(id: number): Promise<Pet | null> {
    const entity = await this.pets.findOneBy({ id });
    return entity && PetMapper.toDomain(entity);
  }

  /** A keyset page: `(status, id)` is indexed, so a page costs the same however deep the cursor is. */
  async findPage({ limit, status, afterId = 0 }: PetPageQuery): Promise<Pet[]> {
    // TypeORM refuses an undefined value in a where object, so the filter is added only when given.
    const where: FindOptionsWhere<PetOrmEntity> = status ? { status, id: MoreThan(afterId) } : { id: MoreThan(afterId) };
    const entities = await this.pets.find({ where, order: { id: 'ASC' }, take: limit });
    return entities.map(PetMapper.toDomain);
  }
}
