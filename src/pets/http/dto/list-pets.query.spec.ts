import { InvalidInputError } from '../../../errors/domain-error';
import { parseListPetsQuery } from './list-pets.query';

describe('parseListPetsQuery', () => {
  it('defaults the page size to 20', () => {
    expect(parseListPetsQuery({})).toEqual({ limit: 20, status: undefined, cursor: undefined });
  });

  it('reads limit, status and cursor', () => {
    expect(parseListPetsQuery({ limit: '100', status: 'sold', cursor: 'cDEuMjA' })).toEqual({ limit: 100, status: 'sold', cursor: 'cDEuMjA' });
  });

  it.each(['0', '101', 'abc', '1.5', '-1', '', '1e1', ' 5'])('refuses limit=%p', (limit) => {
    expect(() => parseListPetsQuery({ limit })).toThrow(new InvalidInputError('limit must be an integer from 1 to 100'));
  });

  it('reads a decimal limit with leading zeros as before', () => {
    expect(parseListPetsQuery({ limit: '0020' }).limit).toBe(20);
  });

  it('refuses a repeated parameter, which arrives as an array', () => {
    expect(() => parseListPetsQuery({ limit: ['5', '6'] })).toThrow(new InvalidInputError('limit must be an integer from 1 to 100'));
    expect(() => parseListPetsQuery({ cursor: ['a', 'b'] })).toThrow(new InvalidInputError('cursor must be given once'));
    expect(() => parseListPetsQuery({ status: ['sold', 'sold'] })).toThrow(
      new InvalidInputError('status must be one of available, pending, sold'),
    );
  });

  it('refuses an unknown parameter and names every problem at once', () => {
    expect(() => parseListPetsQuery({ colour: 'red', status: 'SOLD' })).toThrow(
      new InvalidInputError('property colour should not exist; status must be one of available, pending, sold'),
    );
  });
});
