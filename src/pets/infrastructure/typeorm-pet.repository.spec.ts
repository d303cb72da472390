import type { SqlRunner } from '../../database/sql-runner';
import type { Pet } from '../domain/pet';
import { TypeOrmPetRepository } from './typeorm-pet.repository';

function repositoryAnswering(answer: unknown) {
  const query = jest.fn().mockResolvedValue(answer);
  return { repository: new TypeOrmPetRepository({ query } as unknown as SqlRunner), query };
}

const NEW_PET: Omit<Pet, 'id'> = { name: 'Rex', categoryId: 2, status: 'available' };

describe('TypeOrmPetRepository', () => {
  it.each([
    ['the rowid better-sqlite3 gives', 7],
    ['a bigint rowid', BigInt(7)],
    ["mysql2's result header", { insertId: 7 }],
    ["mysql2's header with a BIGINT id as a string", { insertId: '7' }],
  ])('reads the new id from %s', async (_driver, answer) => {
    const { repository, query } = repositoryAnswering(answer);
    await expect(repository.create(NEW_PET)).resolves.toEqual({ id: 7, ...NEW_PET });
    expect(query).toHaveBeenCalledWith(expect.stringMatching(/^INSERT INTO pets/), ['Rex', 2, 'available']);
  });

  it('maps the row it finds by id, with numeric ids from either driver', async () => {
    const { repository, query } = repositoryAnswering([{ id: '5', name: 'Rex', categoryId: '2', status: 'sold' }]);
    await expect(repository.findById(5)).resolves.toEqual({ id: 5, name: 'Rex', categoryId: 2, status: 'sold' });
    expect(query).toHaveBeenCalledWith(expect.stringContaining('WHERE id = ?'), [5]);
  });

  it('finds nothing when no row comes back', async () => {
    const { repository } = repositoryAnswering([]);
    await expect(repository.findById(5)).resolves.toBeNull();
  });

  it('reads a page after a cursor, filtered by status only when one is given', async () => {
    const { repository, query } = repositoryAnswering([]);
    await repository.findPage({ limit: 3 });
    await repository.findPage({ limit: 3, status: 'sold', afterId: 9 });
    expect(query.mock.calls).toEqual([
      [expect.not.stringContaining('status = ?'), [0, 3]],
      [expect.stringContaining('WHERE status = ? AND id > ?'), ['sold', 9, 3]],
    ]);
  });
});
