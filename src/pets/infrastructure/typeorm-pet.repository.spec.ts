import type { DataSource } from 'typeorm';
import { TypeOrmPetRepository } from './typeorm-pet.repository';

const ROW = { id: 5, name: 'Rex', categoryId: 2, status: 'available' };

function repositoryOn(type: 'better-sqlite3' | 'mysql') {
  const query = jest.fn().mockResolvedValue([ROW]);
  const dataSource = { options: { type }, query } as unknown as DataSource;
  return { repository: new TypeOrmPetRepository(dataSource), query };
}

describe('TypeOrmPetRepository query scheduling', () => {
  it('on SQLite, runs a query only after the I/O already waiting in the event loop', async () => {
    const { repository, query } = repositoryOn('better-sqlite3');
    const order: string[] = [];
    query.mockImplementation(async () => (order.push('query'), [ROW]));
    // Stands for a request that has arrived but not yet been read: it is queued before the query is asked for.
    setImmediate(() => order.push('waiting request'));

    const found = repository.findById(5);
    expect(query).not.toHaveBeenCalled();

    await expect(found).resolves.toEqual(ROW);
    expect(order).toEqual(['waiting request', 'query']);
  });

  it('on SQLite, defers every statement: page, page by status and insert', async () => {
    const { repository, query } = repositoryOn('better-sqlite3');
    const calls = [
      repository.findPage({ limit: 3 }),
      repository.findPage({ limit: 3, status: 'sold', afterId: 9 }),
      repository.create({ name: 'Rex', categoryId: 2, status: 'available' }),
    ];
    expect(query).not.toHaveBeenCalled();
    await Promise.all(calls);
    expect(query.mock.calls.map(([, parameters]) => parameters)).toEqual([
      [0, 3],
      ['sold', 9, 3],
      ['Rex', 2, 'available'],
    ]);
  });

  it('on MySQL, sends the query at once: the round trip already yields to the event loop', async () => {
    const { repository, query } = repositoryOn('mysql');
    const found = repository.findById(5);
    expect(query).toHaveBeenCalledWith(expect.stringContaining('WHERE id = ?'), [5]);
    await expect(found).resolves.toEqual(ROW);
  });
});
