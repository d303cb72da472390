import { DataSource } from 'typeorm';
import { primaryReads } from '../src/database/database-reads';
import { openTransactions, Transactions } from '../src/database/transactions';
import { Pet } from '../src/pets/domain/pet';
import { PetOrmEntity } from '../src/pets/infrastructure/pet.orm-entity';
import { TypeOrmPetRepository } from '../src/pets/infrastructure/typeorm-pet.repository';
import { MigratedDataSource, openMigratedDataSource } from './support/migrated-data-source';

/** The pet repository on the real MariaDB, with the service's own options and migrations. */
(process.env.MYSQL_AVAILABLE === '1' ? describe : describe.skip)('TypeOrmPetRepository on MySQL [mysql]', () => {
  let migrated: MigratedDataSource;
  let dataSource: DataSource;
  let transactions: Transactions;
  let repository: TypeOrmPetRepository;

  beforeAll(async () => {
    migrated = await openMigratedDataSource('mysql', [PetOrmEntity]);
    dataSource = migrated.dataSource;
    transactions = await openTransactions(dataSource);
    repository = new TypeOrmPetRepository(transactions.txHost, primaryReads(dataSource));
  });

  afterAll(async () => {
    await transactions?.close();
    await migrated?.close();
  });

  beforeEach(() => dataSource.query('DELETE FROM pets'));

  it('stores a pet and finds it again, every BIGINT as a JS number', async () => {
    const name = '  Ünïcødé 🐈 cat\t';
    const created = await repository.create({ name, categoryId: 9007199254740991, status: 'sold' });
    expect(created).toEqual({ id: expect.any(Number), name, categoryId: 9007199254740991, status: 'sold' });
    const found = await repository.findById(created.id, 'may-lag');
    expect(found).toEqual(created);
    expect(typeof found!.id).toBe('number');
    expect(typeof found!.categoryId).toBe('number');
    await expect(repository.findById(created.id + 1_000, 'may-lag')).resolves.toBeNull();
  });

  it('keeps a name of 255 code points whole', async () => {
    const name = '🐕'.repeat(255);
    const { id } = await repository.create({ name, categoryId: 1, status: 'available' });
    await expect(repository.findById(id, 'may-lag')).resolves.toMatchObject({ name });
  });

  it('reads pages in id order after a cursor, filtered by status only when one is given', async () => {
    const statuses = ['sold', 'available', 'sold', 'sold', 'pending'] as const;
    const pets: Pet[] = [];
    for (const [i, status] of statuses.entries()) pets.push(await repository.create({ name: `p${i}`, categoryId: i + 1, status }));
    const [a, b, c, d, e] = pets;
    await expect(repository.findPage({ limit: 3 }, 'may-lag')).resolves.toEqual([a, b, c]);
    await expect(repository.findPage({ limit: 3, afterId: c.id }, 'may-lag')).resolves.toEqual([d, e]);
    await expect(repository.findPage({ limit: 2, status: 'sold' }, 'may-lag')).resolves.toEqual([a, c]);
    await expect(repository.findPage({ limit: 2, status: 'sold', afterId: c.id }, 'may-lag')).resolves.toEqual([d]);
    await expect(repository.findPage({ limit: 5, afterId: e.id }, 'may-lag')).resolves.toEqual([]);
  });

  it('gives 100 concurrent creates 100 distinct ids, each the id stored', async () => {
    const created = await Promise.all(
      Array.from({ length: 100 }, (_, i) => repository.create({ name: `burst ${i}`, categoryId: i + 1, status: 'available' })),
    );
    expect(new Set(created.map((pet) => pet.id)).size).toBe(100);
    const stored = await repository.findPage({ limit: 100 }, 'may-lag');
    expect(stored).toEqual([...created].sort((x, y) => x.id - y.id));
  });
});
