import { InvalidInputError } from '../../../errors/domain/domain-error';
import { StrictValidationPipe } from '../../../http/validation';
import { ListPetsQueryDto } from './list-pets.query.dto';

const LIMIT = 'limit must be an integer from 1 to 100';
const STATUS = 'status must be one of available, pending, sold';

/** The query as the route receives it: through the app's global ValidationPipe. */
const pipe = new StrictValidationPipe();
const check = (query: Record<string, unknown>) => pipe.transform(query, { type: 'query', metatype: ListPetsQueryDto, data: undefined });

describe('ListPetsQueryDto through the global validation pipe', () => {
  it('defaults the page size to 20', async () => {
    const query = await check({});
    expect(query).toBeInstanceOf(ListPetsQueryDto);
    expect(query).toEqual({ limit: 20 });
  });

  it('reads limit, status and cursor', async () => {
    await expect(check({ limit: '100', status: 'sold', cursor: 'cDEuMjA' })).resolves.toEqual({ limit: 100, status: 'sold', cursor: 'cDEuMjA' });
  });

  it('reads a query object without a prototype, as Fastify parses it', async () => {
    await expect(check(Object.assign(Object.create(null), { limit: '5' }))).resolves.toEqual({ limit: 5 });
  });

  it.each(['0', '101', 'abc', '1.5', '-1', '+1', '', '1e1', ' 5', '0x10', '00000000000000020'])('refuses limit=%p', async (limit) => {
    await expect(check({ limit })).rejects.toThrow(new InvalidInputError(LIMIT));
  });

  it('reads a decimal limit with leading zeros as before', async () => {
    await expect(check({ limit: '0020' })).resolves.toMatchObject({ limit: 20 });
  });

  it.each(['SOLD', 'lost', ''])('refuses status=%p', async (status) => {
    await expect(check({ status })).rejects.toThrow(new InvalidInputError(STATUS));
  });

  it('refuses a repeated parameter, which arrives as an array', async () => {
    await expect(check({ limit: ['5', '6'] })).rejects.toThrow(new InvalidInputError(LIMIT));
    await expect(check({ cursor: ['a', 'b'] })).rejects.toThrow(new InvalidInputError('cursor must be given once'));
    await expect(check({ status: ['sold', 'sold'] })).rejects.toThrow(new InvalidInputError(STATUS));
  });

  it('refuses an unknown parameter and names every problem at once, in the order of the fields', async () => {
    await expect(check({ colour: 'red', cursor: ['a', 'b'], status: 'SOLD', limit: '0' })).rejects.toThrow(
      new InvalidInputError(`property colour should not exist; ${LIMIT}; ${STATUS}; cursor must be given once`),
    );
  });
});
