import { DataSource } from 'typeorm';
import { createDataSourceOptions } from '../../database/database-options';
import { primaryReads } from '../../database/database-reads';
import { runMigrations } from '../../database/run-migrations';
import { openTransactions, Transactions } from '../../database/transactions';
import { Pet } from '../domain/pet';
import { PetOrmEntity } from './pet.orm-entity';
import { TypeOrmPetRepository } from './typeorm-pet.repository';

// The same repository on the real MariaDB: test/typeorm-pet-repository.int-spec.ts.
describe('TypeOrmPetRepository on SQLite', () => {
  let dataSource: DataSource;
  let transactions: Transactions;
  let repository: TypeOrmPetRepository;

  beforeEach(async () => {
    dataSource = await new DataSource(createDataSourceOptions('sqlite::memory:', [PetOrmEntity])).initialize();
    await runMigrations(dataSource);
    transactions = await openTransactions(dataSource);
    repository = new TypeOrmPetRepository(transactions.txHost, primaryReads(dataSource));
  });

  afterEach(async () => {
    await transactions.close();
    await dataSource.destroy();
  });

  const add = (name: string, status: Pet['status'] = 'available', categoryId = 1) => repository.create({ name, categoryId, status });

  it('stores a pet and answers with its new id, as a number', async () => {
    await expect(add('Rex', 'sold', 9007199254740991)).resolves.toEqual({ id: 1, name: 'Rex', categoryId: 9007199254740991, status: 'sold' });
    await expect(add('Tom')).resolves.toMatchObject({ id: 2 });
    await expect(dataSource.query('SELECT id, name, category_id AS categoryId, status FROM pets ORDER BY id')).resolves.toEqual([
      { id: 1, name: 'Rex', categoryId: 9007199254740991, status: 'sold' },
      { id: 2, name: 'Tom', categoryId: 1, status: 'available' },
    ]);
  });

  it('finds a pet by id with exactly the domain fields, or nothing', async () => {
    const rex = await add('  Ünïcødé 🐈\t', 'pending', 7);
    const found = await repository.findById(rex.id, 'may-lag');
    expect(found).toEqual(rex);
    expect(Object.keys(found!)).toEqual(['id', 'name', 'categoryId', 'status']);
    expect(found).not.toBeInstanceOf(PetOrmEntity);
    await expect(repository.findById(rex.id + 1, 'may-lag')).resolves.toBeNull();
  });

  it('reads pages in id order after a cursor, filtered by status only when one is given', async () => {
    const statuses = { a: 'sold', b: 'available', c: 'sold', d: 'sold', e: 'pending' } as const;
    for (const [name, status] of Object.entries(statuses)) await add(name, status);
    const names = (pets: Pet[]) => pets.map((pet) => pet.name);
    expect(names(await repository.findPage({ limit: 3 }, 'may-lag'))).toEqual(['a', 'b', 'c']);
    expect(names(await repository.findPage({ limit: 3, afterId: 3 }, 'may-lag'))).toEqual(['d', 'e']);
    expect(names(await repository.findPage({ limit: 2, status: 'sold' }, 'may-lag'))).toEqual(['a', 'c']);
    expect(names(await repository.findPage({ limit: 2, status: 'sold', afterId: 3 }, 'may-lag'))).toEqual(['d']);
    await expect(repository.findPage({ limit: 5, afterId: 5 }, 'may-lag')).resolves.toEqual([]);
  });

  it('writes a change or a removal only onto the pet as it was read, and never reuses a removed id', async () => {
    const rex = await add('Rex');
    const max = { ...rex, name: 'Max' };
    await expect(repository.replace(rex, max)).resolves.toBe(true);
    // Made from the same read, the second change finds the pet changed.
    await expect(repository.replace(rex, { ...rex, status: 'sold' })).resolves.toBe(false);
    await expect(repository.remove(rex)).resolves.toBe(false);
    await expect(repository.findById(rex.id, 'may-lag')).resolves.toEqual(max);
    await expect(repository.countByStatus('may-lag')).resolves.toEqual({ available: 1, pending: 0, sold: 0 });
    await expect(repository.remove(max)).resolves.toBe(true);
    await expect(repository.countByStatus('may-lag')).resolves.toEqual({ available: 0, pending: 0, sold: 0 });
    await expect(add('Tom')).resolves.toMatchObject({ id: rex.id + 1 });
  });

  it.each([
    ['by the (status, id) index', { status: 'sold' as const, afterId: 9 }, /USING INDEX idx_pets_status_id \(status=\? AND id>\?\)/],
    ['by the primary key', { afterId: 9 }, /USING INTEGER PRIMARY KEY \(rowid>\?\)/],
  ])('reads a page %s, however deep the cursor is', async (_index, query, plan) => {
    const queries: Array<[string, unknown[]]> = [];
    const logged = jest
      .spyOn(dataSource.logger, 'logQuery')
      .mockImplementation((sql, parameters) => void queries.push([sql, (parameters as unknown[] | undefined) ?? []]));
    await repository.findPage({ limit: 2, ...query }, 'may-lag');
    logged.mockRestore();
    expect(queries).toHaveLength(1);
    const [sql, parameters] = queries[0];
    // Bound, not written into the text: one prepared statement serves every id and page size.
    expect(sql).toMatch(/ORDER BY id LIMIT \?$/);
    expect(parameters.at(-1)).toBe(2);
    const steps: Array<{ detail: string }> = await dataSource.query(`EXPLAIN QUERY PLAN ${sql}`, parameters);
    expect(steps.map((step) => step.detail)).toEqual([expect.stringMatching(plan)]);
  });
});
