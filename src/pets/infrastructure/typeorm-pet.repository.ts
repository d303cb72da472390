import { Injectable } from '@nestjs/common';
import { DatabaseReads, ReadTarget } from '../../database/database-reads';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { execute, insert } from '../../database/statements';
import { Pet } from '../domain/pet';
import { PET_STATUSES, PetStatus } from '../domain/pet-status';
import { PetPageQuery, PetRepository, ReadFreshness } from '../domain/pet.repository';
import { PetMapper } from './pet.mapper';
import { PetOrmEntity } from './pet.orm-entity';

const COLUMNS = 'id, name, category_id AS categoryId, status';
const AS_READ = 'id = ? AND name = ? AND category_id = ? AND status = ?';
const asRead = (pet: Pet) => [pet.id, pet.name, pet.categoryId, pet.status];

/**
 * Fixed statements with bound parameters: through find options and
 * `insert()`, TypeORM's SQLite driver writes values into the SQL text, so
 * requests would prepare statements anew instead of reusing the ones TypeORM
 * caches (docs/adr/0006, 0019).
 */
const SQL = {
  byId: `SELECT ${COLUMNS} FROM pets WHERE id = ?`,
  page: `SELECT ${COLUMNS} FROM pets WHERE id > ? ORDER BY id LIMIT ?`,
  pageByStatus: `SELECT ${COLUMNS} FROM pets WHERE status = ? AND id > ? ORDER BY id LIMIT ?`,
  insert: 'INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?)',
  /** Conditional on the whole pet as it was read, so of two changes made from the same read only one is written. */
  replace: `UPDATE pets SET name = ?, category_id = ?, status = ? WHERE ${AS_READ}`,
  remove: `DELETE FROM pets WHERE ${AS_READ}`,
  /** An index-only scan of (status, id). */
  countByStatus: 'SELECT status, COUNT(*) AS count FROM pets GROUP BY status',
} as const;

/** A read that may lag may run on a replica; one that must be latest runs on the primary. */
const TARGET: Record<ReadFreshness, ReadTarget> = { latest: 'primary', 'may-lag': 'replica' };

/**
 * The pet store on TypeORM; the same calls serve SQLite and MySQL. Writes go
 * to the primary, inside the unit of work in progress if there is one; reads
 * through DatabaseReads, on a replica when one is configured, fit, and allowed.
 */
@Injectable()
export class TypeOrmPetRepository extends PetRepository {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly reads: DatabaseReads,
  ) {
    super();
  }

  async create(pet: Omit<Pet, 'id'>): Promise<Pet> {
    const id = await insert(this.txHost.tx, SQL.insert, [pet.name, pet.categoryId, pet.status]);
    return { id, ...pet };
  }

  async findById(id: number, freshness: ReadFreshness): Promise<Pet | null> {
    let { rows, servedBy } = await this.reads.query<PetOrmEntity>(SQL.byId, [id], TARGET[freshness]);
    // A pet missing from a replica may only be younger than its lag: the primary has the last word on a 404.
    if (rows.length === 0 && servedBy === 'replica') ({ rows } = await this.reads.query<PetOrmEntity>(SQL.byId, [id], 'primary'));
    return rows.length ? PetMapper.toDomain(rows[0]) : null;
  }

  /** A keyset page: `(status, id)` is indexed, so a page costs the same however deep the cursor is. */
  async findPage({ limit, status, afterId = 0 }: PetPageQuery, freshness: ReadFreshness): Promise<Pet[]> {
    const { rows } = status
      ? await this.reads.query<PetOrmEntity>(SQL.pageByStatus, [status, afterId, limit], TARGET[freshness])
      : await this.reads.query<PetOrmEntity>(SQL.page, [afterId, limit], TARGET[freshness]);
    return rows.map(PetMapper.toDomain);
  }

  async replace(current: Pet, next: Pet): Promise<boolean> {
    return (await execute(this.txHost.tx, SQL.replace, [next.name, next.categoryId, next.status, ...asRead(current)])) === 1;
  }

  /** A hard delete: AUTOINCREMENT on SQLite and InnoDB's persisted counter (MariaDB 10.2.4+, MySQL 8) never hand the id out again. */
  async remove(current: Pet): Promise<boolean> {
    return (await execute(this.txHost.tx, SQL.remove, asRead(current))) === 1;
  }

  async countByStatus(freshness: ReadFreshness): Promise<Record<PetStatus, number>> {
    const { rows } = await this.reads.query<{ status: PetStatus; count: number | string }>(SQL.countByStatus, [], TARGET[freshness]);
    const counts = Object.fromEntries(PET_STATUSES.map((status) => [status, 0])) as Record<PetStatus, number>;
    for (const { status, count } of rows) counts[status] = Number(count);
    return counts;
  }
}
