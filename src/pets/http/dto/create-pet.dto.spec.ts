import { InvalidInputError } from '../../../errors/domain-error';
import { StrictValidationPipe } from '../../../http/validation';
import { CreatePetDto } from './create-pet.dto';

const NAME = 'name must have 1 to 255 characters and not be only white space';
const CATEGORY = 'categoryId must be an integer from 1 to 9007199254740991';
const STATUS = 'status must be one of available, pending, sold';
const UNSAFE = 'name must not contain control characters or bidirectional embedding, override or isolate characters';

/** The body as the route receives it: through the app's global ValidationPipe. */
const pipe = new StrictValidationPipe();
const check = (body: unknown) => pipe.transform(body, { type: 'body', metatype: CreatePetDto, data: undefined });

describe('CreatePetDto through the global validation pipe', () => {
  it('reads name, categoryId and status, leaving an absent status for the default', async () => {
    const minimal = await check({ name: 'Rex', categoryId: 3 });
    expect(minimal).toBeInstanceOf(CreatePetDto);
    expect(minimal).toEqual({ name: 'Rex', categoryId: 3 });
    await expect(check({ name: ' Rex\u200d ', categoryId: 9007199254740991, status: 'sold' })).resolves.toEqual({
      name: ' Rex\u200d ',
      categoryId: 9007199254740991,
      status: 'sold',
    });
  });

  it('counts the name in code points: 255 emoji pass, 256 do not', async () => {
    await expect(check({ name: '🐕'.repeat(255), categoryId: 1 })).resolves.toMatchObject({ name: '🐕'.repeat(255) });
    await expect(check({ name: '🐕'.repeat(256), categoryId: 1 })).rejects.toThrow(new InvalidInputError(NAME));
    await expect(check({ name: 'a'.repeat(256), categoryId: 1 })).rejects.toThrow(new InvalidInputError(NAME));
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['name missing', { categoryId: 1 }, 'name is required'],
    ['name null', { name: null, categoryId: 1 }, 'name is required'],
    ['name a number', { name: 5, categoryId: 1 }, 'name must be a string'],
    ['name an array', { name: ['Rex'], categoryId: 1 }, 'name must be a string'],
    ['name an object', { name: { first: 'Rex' }, categoryId: 1 }, 'name must be a string'],
    ['name empty', { name: '', categoryId: 1 }, NAME],
    ['name white space only', { name: ' \t\n', categoryId: 1 }, NAME],
    ['name with a lone low surrogate', { name: 'a\udc00b', categoryId: 1 }, 'name must not contain an unpaired UTF-16 surrogate'],
    ['name ending in a lone high surrogate', { name: 'Rex\ud83d', categoryId: 1 }, 'name must not contain an unpaired UTF-16 surrogate'],
    ['name with a tab', { name: 'Rex\t', categoryId: 1 }, UNSAFE],
    ['name with a C1 control', { name: 'Rex\u009f', categoryId: 1 }, UNSAFE],
    ['name with a left-to-right embedding', { name: '\u202aRex', categoryId: 1 }, UNSAFE],
    ['name with a pop directional isolate', { name: 'Rex\u2069', categoryId: 1 }, UNSAFE],
    ['categoryId missing', { name: 'Rex' }, 'categoryId is required'],
    ['categoryId null', { name: 'Rex', categoryId: null }, 'categoryId is required'],
    ['categoryId a numeric string', { name: 'Rex', categoryId: '5' }, CATEGORY],
    ['categoryId a fraction', { name: 'Rex', categoryId: 1.5 }, CATEGORY],
    ['categoryId zero', { name: 'Rex', categoryId: 0 }, CATEGORY],
    ['categoryId negative', { name: 'Rex', categoryId: -4 }, CATEGORY],
    ['categoryId beyond 2^53 - 1', { name: 'Rex', categoryId: 9007199254740992 }, CATEGORY],
    ['categoryId as JSON.parse rounds 9007199254740993', JSON.parse('{"name":"Rex","categoryId":9007199254740993}'), CATEGORY],
    ['categoryId a boolean', { name: 'Rex', categoryId: true }, CATEGORY],
    ['status unknown', { name: 'Rex', categoryId: 1, status: 'SOLD' }, STATUS],
    ['status null', { name: 'Rex', categoryId: 1, status: null }, STATUS],
    ['id sent by the client', { id: 7, name: 'Rex', categoryId: 1 }, 'property id should not exist'],
  ])('refuses %s', async (_case, body, message) => {
    await expect(check(body)).rejects.toThrow(new InvalidInputError(message));
  });

  it('names every problem at once, unknown fields first', async () => {
    await expect(check({ colour: 'red', name: 5, categoryId: 0, status: 1, id: 2 })).rejects.toThrow(
      new InvalidInputError(`property colour should not exist; property id should not exist; name must be a string; ${CATEGORY}; ${STATUS}`),
    );
  });

  it.each([undefined, null, [], 'Rex', 5])('refuses a body of %p: it must be a JSON object', async (body) => {
    await expect(check(body)).rejects.toThrow(new InvalidInputError('Request body must be a JSON object'));
  });
});
