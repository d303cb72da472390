import { ArgumentMetadata } from '@nestjs/common';
import { InvalidInputError } from '../errors/domain/domain-error';
import { CodePointLength, IsId, MAX_BODY_DEPTH, parseDecimal, ParseIdPipe, StrictValidationPipe } from './validation';

/** The rules this file adds to class-validator, on a body as a new route would declare one. */
class LabelDto {
  @CodePointLength(1, 3)
  label: string;

  @IsId()
  ownerId: number;
}

const asBody = (metatype: unknown): ArgumentMetadata => ({ type: 'body', metatype: metatype as never, data: undefined });

describe('the global validation pipe', () => {
  const pipe = new StrictValidationPipe();

  it('hands a valid body to the route as an instance of its DTO', async () => {
    const value = await pipe.transform({ label: '🐕🐕🐕', ownerId: 9007199254740991 }, asBody(LabelDto));
    expect(value).toBeInstanceOf(LabelDto);
    expect(value).toEqual({ label: '🐕🐕🐕', ownerId: 9007199254740991 });
  });

  it('hands a single path or query value on as sent, for its own pipe to parse strictly', async () => {
    for (const sent of ['1e0', '0x1', ' 1', '+1']) {
      await expect(pipe.transform(sent, { type: 'param', data: 'petId', metatype: Number })).resolves.toBe(sent);
      await expect(pipe.transform(sent, { type: 'query', data: 'limit', metatype: Number })).resolves.toBe(sent);
    }
  });

  it('refuses, naming the field: a string over its length in code points, an id that is no safe positive integer', async () => {
    await expect(pipe.transform({ label: '🐕🐕🐕🐕', ownerId: 1 }, asBody(LabelDto))).rejects.toThrow(
      new InvalidInputError('label must have 1 to 3 characters'),
    );
    for (const ownerId of ['2', 0, 1.5, 2 ** 53, true, null]) {
      await expect(pipe.transform({ label: 'a', ownerId }, asBody(LabelDto))).rejects.toThrow(
        new InvalidInputError('ownerId must be an integer from 1 to 9007199254740991'),
      );
    }
  });

  it('refuses unknown fields', async () => {
    await expect(pipe.transform({ label: 'a', ownerId: 2, colour: 'red' }, asBody(LabelDto))).rejects.toThrow(
      new InvalidInputError('property colour should not exist'),
    );
  });

  it.each([undefined, null, [], 'text', 5])('refuses a body of %p, whatever the route declares', async (body) => {
    for (const metatype of [LabelDto, Object, undefined]) {
      await expect(pipe.transform(body, asBody(metatype))).rejects.toThrow(new InvalidInputError('Request body must be a JSON object'));
    }
  });

  it('refuses a body nested deeper than any DTO declares, before class-transformer copies it', async () => {
    const nested = (depth: number) => JSON.parse(`{"label":"a","ownerId":1,"pad":${'['.repeat(depth)}${']'.repeat(depth)}}`);
    await expect(pipe.transform(nested(MAX_BODY_DEPTH - 1), asBody(LabelDto))).rejects.toThrow(new InvalidInputError('property pad should not exist'));
    for (const depth of [MAX_BODY_DEPTH, 8_000]) {
      await expect(pipe.transform(nested(depth), asBody(LabelDto))).rejects.toThrow(
        new InvalidInputError(`Request body has nesting deeper than ${MAX_BODY_DEPTH} levels`),
      );
    }
  });

  it('refuses unknown query parameters named after members every object has, in a query without a prototype too', async () => {
    const asQuery: ArgumentMetadata = { type: 'query', metatype: LabelDto as never, data: undefined };
    for (const field of ['toString', 'constructor', 'valueOf', 'hasOwnProperty', '__proto__']) {
      const query = Object.assign(Object.create(null), { label: 'a' });
      Object.defineProperty(query, field, { value: 'x', enumerable: true });
      await expect(pipe.transform(query, asQuery)).rejects.toThrow(
        new InvalidInputError(`property ${field} should not exist; ownerId must be an integer from 1 to 9007199254740991`),
      );
    }
  });

  it('does not convert a single path or query value to a number', async () => {
    await expect(pipe.transform('1e0', { type: 'param', metatype: Number, data: 'petId' })).resolves.toBe('1e0');
    await expect(pipe.transform(' 7', { type: 'query', metatype: Number, data: 'page' })).resolves.toBe(' 7');
  });
});

describe('ids and decimals', () => {
  it('reads plain decimal digits only', () => {
    expect(parseDecimal('0042')).toBe(42);
    for (const text of ['1e0', '0x1', '+1', ' 1', '1.0', '', '12345678901234567', 5]) expect(parseDecimal(text)).toBeNaN();
  });

  it('turns a path id into a number from 1 to 2^53 - 1, naming the parameter otherwise', () => {
    const pipe = new ParseIdPipe();
    const petId: ArgumentMetadata = { type: 'param', metatype: Number, data: 'petId' };
    expect(pipe.transform('9007199254740991', petId)).toBe(9007199254740991);
    expect(pipe.transform('0042', petId)).toBe(42);
    for (const value of ['0', '9007199254740992', '99999999999999999999', '1e0', '0x1', ' 1', '+1', '-1', '1.5', 'abc', '', undefined]) {
      expect(() => pipe.transform(value, petId)).toThrow(new InvalidInputError('petId must be an integer from 1 to 9007199254740991'));
    }
  });
});
