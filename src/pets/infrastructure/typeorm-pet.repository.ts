import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Pet } from '../domain/pet';
import { PetPageQuery, PetRepository } from '../domain/pet.repository';
import { PetOrmEntity } from './pet.orm-entity';
import { PetMapper, PetRow } from './pet.mapper';

const COLUMNS = 'id, name, category_id AS categoryId, status';

/**
 * Reads use fixed SQL without entity hydration: these are the hot paths, and the
 * same statements run unchanged on SQLite and MySQL. `(status, id)` is indexed,
 * so a page costs the same however deep the cursor is.
 */
@Injectable()
export class TypeOrmPetRepository extends PetRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    super();
  }

  async create(pet: Omit<Pet, 'id'>): Promise<Pet> {
    const result = await this.dataSource.getRepository(PetOrmEntity).insert(pet);
    return { id: Number(result.identifiers[0].id), ...pet };
  }

  async findById(id: number): Promise<Pet | null> {
    const rows: PetRow[] = await this.dataSource.query(`SELECT ${COLUMNS} FROM pets WHERE id = ?`, [id]);
    return rows.length ? PetMapper.toDomain(rows[0]) : null;
  }

  async findPage({ limit, status, afterId = 0 }: PetPageQuery): Promise<Pet[]> {
    const rows: PetRow[] = status
      ? await this.dataSource.query(
          `SELECT ${COLUMNS} FROM pets WHERE status = ? AND id > ? ORDER BY id LIMIT ?`,
          [status, afterId, limit],
        )
      : await this.dataSource.query(`SELECT ${COLUMNS} FROM pets WHERE id > ? ORDER BY id LIMIT ?`, [afterId, limit]);
    return rows.map(PetMapper.toDomain);
  }
}
