import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { answersOnEventLoop } from '../../database/query-scheduling';
import { Pet } from '../domain/pet';
import { PetPageQuery, PetRepository } from '../domain/pet.repository';
import { PetMapper, PetRow } from './pet.mapper';

const COLUMNS = 'id, name, category_id AS categoryId, status';

/** What a write answers: better-sqlite3 gives the new rowid, mysql2 a result header. */
type InsertResult = number | bigint | { insertId: number | string };

/**
 * Reads and writes use fixed SQL without entity hydration or the query builder:
 * these are the hot paths, and the same statements run unchanged on SQLite and
 * MySQL. `(status, id)` is indexed, so a page costs the same however deep the cursor is.
 */
@Injectable()
export class TypeOrmPetRepository extends PetRepository {
  /** SQLite queries wait for the check phase, so concurrent requests are read first (see answersOnEventLoop). */
  private readonly defersQueries: boolean;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    super();
    this.defersQueries = answersOnEventLoop(dataSource);
  }

  async create(pet: Omit<Pet, 'id'>): Promise<Pet> {
    const result: InsertResult = await this.query('INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?)', [
      pet.name,
      pet.categoryId,
      pet.status,
    ]);
    return { id: Number(typeof result === 'object' ? result.insertId : result), ...pet };
  }

  async findById(id: number): Promise<Pet | null> {
    const rows: PetRow[] = await this.query(`SELECT ${COLUMNS} FROM pets WHERE id = ?`, [id]);
    return rows.length ? PetMapper.toDomain(rows[0]) : null;
  }

  async findPage({ limit, status, afterId = 0 }: PetPageQuery): Promise<Pet[]> {
    const rows: PetRow[] = status
      ? await this.query(`SELECT ${COLUMNS} FROM pets WHERE status = ? AND id > ? ORDER BY id LIMIT ?`, [status, afterId, limit])
      : await this.query(`SELECT ${COLUMNS} FROM pets WHERE id > ? ORDER BY id LIMIT ?`, [afterId, limit]);
    return rows.map(PetMapper.toDomain);
  }

  private async query<T>(sql: string, parameters: unknown[]): Promise<T> {
    if (this.defersQueries) await nextTurn();
    return this.dataSource.query<T>(sql, parameters);
  }
}
