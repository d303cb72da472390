import { InvalidInputError } from '../../../errors/domain/domain-error';
import { StrictValidationPipe } from '../../../http/validation';
import { CreatePetDto } from './create-pet.dto';
import { PET_NAME_SCHEMA } from './pet.response.dto';

const NAME = 'name must have 1 to 255 characters and not be only white space';
const CATEGORY = 'categoryId must be an integer from 1 to 9007199254740991';
const STATUS = 'status must be one of available, pending, sold';
const CONTROL = (found: string) => `name must not contain control or bidirectional formatting characters (found ${found})`;

/** The body as the route receives it: through the app's global ValidationPipe. */
const pipe = new StrictValidationPipe();
const check = (body: unknown) => pipe.transform(body, { type: 'body', metatype: CreatePetDto, data: undefined });

describe('CreatePetDto through the global validation pipe', () => {
  it('reads name, categoryId and status, leaving an absent status for the default', async () => {
    const minimal = await check({ name: 'Rex', categoryId: 3 });
    expect(minimal).toBeInstanceOf(CreatePetDto);
    expect(minimal).toEqual({ name: 'Rex', categoryId: 3 });
    await expect(check({ name: ' Rex\u00a0', categoryId: 9007199254740991, status: 'sold' })).resolves.toEqual({
      name: ' Rex\u00a0',
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
    ['name white space only', { name: ' \u00a0\u3000', categoryId: 1 }, NAME],
    ['name with a tab', { name: 'Rex\t', categoryId: 1 }, CONTROL('U+0009')],
    ['name with a lone low surrogate', { name: 'a\udc00b', categoryId: 1 }, 'name must not contain an unpaired UTF-16 surrogate'],
    ['name ending in a lone high surrogate', { name: 'Rex\ud83d', categoryId: 1 }, 'name must not contain an unpaired UTF-16 surrogate'],
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

  it.each([
    ['NUL', '\u0000', 'U+0000'],
    ['U+0001', '\u0001', 'U+0001'],
    ['DEL', '\u007f', 'U+007F'],
    ['NEL (a C1 control)', '\u0085', 'U+0085'],
    ['U+009F, the last C1 control', '\u009f', 'U+009F'],
    ['a left-to-right embedding', '\u202a', 'U+202A'],
    ['a right-to-left override', '\u202e', 'U+202E'],
    ['a left-to-right isolate', '\u2066', 'U+2066'],
    ['a pop directional isolate', '\u2069', 'U+2069'],
  ])('refuses a name with %s, naming the character', async (_case, character, found) => {
    await expect(check({ name: `Re${character}x`, categoryId: 1 })).rejects.toThrow(new InvalidInputError(CONTROL(found)));
  });

  it.each(['\u200c', '\u200d', '\u200e', '\u200f', '\u00a0', '\u2028', '\u0300'])('keeps a name with %p, which is no control character', async (character) => {
    await expect(check({ name: `Re${character}x`, categoryId: 1 })).resolves.toMatchObject({ name: `Re${character}x` });
  });

  it('documents in the API schema’s pattern the very names it takes', async () => {
    const pattern = new RegExp(PET_NAME_SCHEMA.pattern, 'u');
    const taken = ['Rex', ' Rex\u00a0', 'Re\u200dx', '\u200eRex', '\ufeffRex', '🐕'];
    const names = [...taken, ' ', '\u00a0\u3000', 'Rex\t', 'Re\u0000x', 'Re\u0085x', 'Rex\u202e', '\u2066Rex', '\u2069'];
    for (const name of names) {
      const valid = await check({ name, categoryId: 1 }).then(
        () => true,
        () => false,
      );
      expect({ name, valid, documented: pattern.test(name) }).toEqual({ name, valid: taken.includes(name), documented: valid });
    }
  });

  it.each(['toString', 'valueOf', 'constructor', 'hasOwnProperty', 'isPrototypeOf', '__proto__', 'prototype'])(
    'refuses a field named %s like any unknown field, with the rest of the body checked as usual',
    async (field) => {
      // JSON.parse makes even __proto__ an own field, as the body parser's JSON would.
      const body = JSON.parse(`{"name":"Rex","categoryId":1,"${field}":"x"}`);
      await expect(check(body)).rejects.toThrow(new InvalidInputError(`property ${field} should not exist`));
      const wrong = JSON.parse(`{"${field}":{},"colour":"red","name":5,"categoryId":1}`);
      await expect(check(wrong)).rejects.toThrow(
        new InvalidInputError(`property ${field} should not exist; property colour should not exist; name must be a string`),
      );
    },
  );

  it('names every problem at once, unknown fields first', async () => {
    await expect(check({ colour: 'red', name: 5, categoryId: 0, status: 1, id: 2 })).rejects.toThrow(
      new InvalidInputError(`property colour should not exist; property id should not exist; name must be a string; ${CATEGORY}; ${STATUS}`),
    );
  });

  it.each([undefined, null, [], 'Rex', 5])('refuses a body of %p: it must be a JSON object', async (body) => {
    await expect(check(body)).rejects.toThrow(new InvalidInputError('Request body must be a JSON object'));
  });
});
