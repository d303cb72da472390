import { Injectable } from '@nestjs/common';
import { TypeOrmUnitOfWork } from '../../database/typeorm-unit-of-work';
import { Pet } from '../domain/pet';
import { PetPageQuery, PetRepository } from '../domain/pet.repository';
import { PetMapper } from './pet.mapper';
import { PetOrmEntity } from './pet.orm-entity';

const COLUMNS = 'id, name, category_id AS categoryId, status';

/**
 * Reads are fixed statements with bound parameters: through find options,
 * TypeORM's SQLite driver writes each id into the SQL text, so every request
 * would prepare a statement anew instead of reusing the one TypeORM caches.
 */
const SQL = {
  byId: `SELECT ${COLUMNS} FROM pets WHERE id = ?`,
  page: `SELECT ${COLUMNS} FROM pets WHERE id > ? ORDER BY id LIMIT ?`,
  pageByStatus: `SELECT ${COLUMNS} FROM pets WHERE status = ? AND id > ? ORDER BY id LIMIT ?`,
} as const;

/**
 * The pet store on TypeORM's EntityManager; the same calls serve SQLite and
 * MySQL. Inside a unit of work every statement joins its transaction.
 */
@Injectable()
export class TypeOrmPetRepository extends PetRepository {
  constructor(private readonly unitOfWork: TypeOrmUnitOfWork) {
    super();
  }

  async create(pet: Omit<Pet, 'id'>): Promise<Pet> {
    const manager = await this.unitOfWork.manager();
    const { identifiers } = await manager.insert(PetOrmEntity, PetMapper.toPersistence(pet));
    return { id: Number(identifiers[0].id), ...pet };
  }

  async findById(id: number): Promise<Pet | null> {
    const rows: PetOrmEntity[] = await (await this.unitOfWork.manager()).query(SQL.byId, [id]);
    return rows.length ? PetMapper.toDomain(rows[0]) : null;
  }

  /** A keyset page: `(status, id)` is indexed, so a page costs the same however deep the cursor is. */
  async findPage({ limit, status, afterId = 0 }: PetPageQuery): Promise<Pet[]> {
    const manager = await this.unitOfWork.manager();
    const rows: PetOrmEntity[] = status
      ? await manager.query(SQL.pageByStatus, [status, afterId, limit])
      : await manager.query(SQL.page, [afterId, limit]);
    return rows.map(PetMapper.toDomain);
  }
}
