import { Injectable } from '@nestjs/common';
import { SqlRunner } from '../../database/sql-runner';
import { Pet } from '../domain/pet';
import { PetPageQuery, PetRepository } from '../domain/pet.repository';
import { PetMapper, PetRow } from './pet.mapper';

const COLUMNS = 'id, name, category_id AS categoryId, status';
/** Fixed texts, built once: the SqlRunner keeps one prepared statement per text. */
const SQL = {
  insert: 'INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?)',
  byId: `SELECT ${COLUMNS} FROM pets WHERE id = ?`,
  page: `SELECT ${COLUMNS} FROM pets WHERE id > ? ORDER BY id LIMIT ?`,
  pageByStatus: `SELECT ${COLUMNS} FROM pets WHERE status = ? AND id > ? ORDER BY id LIMIT ?`,
} as const;

/** What a write answers: better-sqlite3 gives the new rowid, mysql2 a result header. */
type InsertResult = number | bigint | { insertId: number | string };

/**
 * Reads and writes use fixed SQL through the SqlRunner, without entity hydration
 * or the query builder: these are the hot paths, and the same statements run
 * unchanged on SQLite and MySQL. `(status, id)` is indexed, so a page costs the same however deep the cursor is.
 */
@Injectable()
export class TypeOrmPetRepository extends PetRepository {
  constructor(private readonly sql: SqlRunner) {
    super();
  }

  async create(pet: Omit<Pet, 'id'>): Promise<Pet> {
    const result: InsertResult = await this.sql.query(SQL.insert, [pet.name, pet.categoryId, pet.status]);
    return { id: Number(typeof result === 'object' ? result.insertId : result), ...pet };
  }

  async findById(id: number): Promise<Pet | null> {
    const rows: PetRow[] = await this.sql.query(SQL.byId, [id]);
    return rows.length ? PetMapper.toDomain(rows[0]) : null;
  }

  async findPage({ limit, status, afterId = 0 }: PetPageQuery): Promise<Pet[]> {
    const rows: PetRow[] = status
      ? await this.sql.query(SQL.pageByStatus, [status, afterId, limit])
      : await this.sql.query(SQL.page, [afterId, limit]);
    return rows.map(PetMapper.toDomain);
  }
}
