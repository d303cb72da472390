import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
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
    const rows: PetOrmEntity[] = await this.pets.query(SQL.byId, [id]);
    return rows.length ? PetMapper.toDomain(rows[0]) : null;
  }

  /** A keyset page: `(status, id)` is indexed, so a page costs the same however deep the cursor is. */
  async findPage({ limit, status, afterId = 0 }: PetPageQuery): Promise<Pet[]> {
    const rows: PetOrmEntity[] = status
      ? await this.pets.query(SQL.pageByStatus, [status, afterId, limit])
      : await this.pets.query(SQL.page, [afterId, limit]);
    return rows.map(PetMapper.toDomain);
  }
}
