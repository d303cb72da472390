import { InvalidInputError } from '../../../errors/domain-error';
import { parseCreatePetBody } from './create-pet.dto';

const NAME = 'name must have 1 to 255 characters and not be only white space';
const CATEGORY = 'categoryId must be an integer from 1 to 9007199254740991';
const STATUS = 'status must be one of available, pending, sold';

describe('parseCreatePetBody', () => {
  it('reads name, categoryId and status, leaving an absent status for the default', () => {
    expect(parseCreatePetBody({ name: 'Rex', categoryId: 3 })).toEqual({ name: 'Rex', categoryId: 3, status: undefined });
    expect(parseCreatePetBody({ name: ' Rex\t', categoryId: 9007199254740991, status: 'sold' })).toEqual({
      name: ' Rex\t',
      categoryId: 9007199254740991,
      status: 'sold',
    });
  });

  it('counts the name in code points: 255 emoji pass, 256 do not', () => {
    expect(parseCreatePetBody({ name: '🐕'.repeat(255), categoryId: 1 }).name).toBe('🐕'.repeat(255));
    expect(() => parseCreatePetBody({ name: '🐕'.repeat(256), categoryId: 1 })).toThrow(new InvalidInputError(NAME));
    expect(() => parseCreatePetBody({ name: 'a'.repeat(256), categoryId: 1 })).toThrow(new InvalidInputError(NAME));
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['name missing', { categoryId: 1 }, 'name is required'],
    ['name null', { name: null, categoryId: 1 }, 'name is required'],
    ['name a number', { name: 5, categoryId: 1 }, 'name must be a string'],
    ['name an array', { name: ['Rex'], categoryId: 1 }, 'name must be a string'],
    ['name empty', { name: '', categoryId: 1 }, NAME],
    ['name white space only', { name: ' \t\n', categoryId: 1 }, NAME],
    ['categoryId missing', { name: 'Rex' }, 'categoryId is required'],
    ['categoryId null', { name: 'Rex', categoryId: null }, 'categoryId is required'],
    ['categoryId a numeric string', { name: 'Rex', categoryId: '5' }, CATEGORY],
    ['categoryId a fraction', { name: 'Rex', categoryId: 1.5 }, CATEGORY],
    ['categoryId zero', { name: 'Rex', categoryId: 0 }, CATEGORY],
    ['categoryId beyond 2^53 - 1', { name: 'Rex', categoryId: 9007199254740992 }, CATEGORY],
    ['categoryId a boolean', { name: 'Rex', categoryId: true }, CATEGORY],
    ['status unknown', { name: 'Rex', categoryId: 1, status: 'SOLD' }, STATUS],
    ['status null', { name: 'Rex', categoryId: 1, status: null }, STATUS],
    ['id sent by the client', { id: 7, name: 'Rex', categoryId: 1 }, 'property id should not exist'],
  ])('refuses %s', (_case, body, message) => {
    expect(() => parseCreatePetBody(body)).toThrow(new InvalidInputError(message));
  });

  it('names every problem at once, unknown fields first', () => {
    expect(() => parseCreatePetBody({ colour: 'red', name: 5, categoryId: 0, status: 1, id: 2 })).toThrow(
      new InvalidInputError(`property colour should not exist; property id should not exist; name must be a string; ${CATEGORY}; ${STATUS}`),
    );
  });

  it('returns only the known fields', () => {
    expect(Object.keys(parseCreatePetBody({ name: 'Rex', categoryId: 1, status: 'pending' }))).toEqual(['name', 'categoryId', 'status']);
  });
});
