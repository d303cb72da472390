import { IsInt, IsString, Min } from 'class-validator';
import { InvalidInputError } from '../errors/domain-error';
import { createValidationPipe, parseDecimal, parseIdParam, ValidatedByOwnPipe } from './validation';

/** A DTO as a new route would declare one: the global pipe is what checks it. */
class NewThingDto {
  @IsString()
  name: string;

  @IsInt()
  @Min(1)
  count: number;
}

@ValidatedByOwnPipe()
class CheckedElsewhere {
  anything: unknown;
}

const asBody = (metatype: unknown) => ({ type: 'body' as const, metatype: metatype as never, data: undefined });

describe('the global validation pipe', () => {
  const pipe = createValidationPipe();

  it('hands a valid body to the route as an instance of its DTO', async () => {
    const value = await pipe.transform({ name: 'crate', count: 2 }, asBody(NewThingDto));
    expect(value).toBeInstanceOf(NewThingDto);
    expect(value).toEqual({ name: 'crate', count: 2 });
  });

  it('refuses a number sent as a string, with a message that names the field', async () => {
    const refusal = pipe.transform({ name: 'crate', count: '2' }, asBody(NewThingDto));
    await expect(refusal).rejects.toBeInstanceOf(InvalidInputError);
    // One message per field (the first rule it breaks), fields joined by '; '.
    await expect(refusal).rejects.toThrow(/^count [^;]+$/);
  });

  it('refuses unknown fields', async () => {
    await expect(pipe.transform({ name: 'crate', count: 2, colour: 'red' }, asBody(NewThingDto))).rejects.toThrow(
      new InvalidInputError('property colour should not exist'),
    );
  });

  it('leaves a class marked @ValidatedByOwnPipe to its own pipe', async () => {
    const raw = { whatever: [1, 2] };
    await expect(pipe.transform(raw, asBody(CheckedElsewhere))).resolves.toBe(raw);
  });

  it.each([undefined, null, [], 'text', 5])('refuses a body of %p, whichever pipe checks its fields', (body) => {
    for (const metatype of [NewThingDto, CheckedElsewhere, Object]) {
      expect(() => pipe.transform(body, asBody(metatype))).toThrow(new InvalidInputError('Request body must be a JSON object'));
    }
  });

  it('leaves absent query and path values to their own pipes', async () => {
    await expect(pipe.transform(undefined, { type: 'query', metatype: Object, data: 'limit' })).resolves.toBeUndefined();
    await expect(pipe.transform(null, { type: 'param', metatype: String, data: 'petId' })).resolves.toBeNull();
  });

  it('does not convert path and query strings to numbers', async () => {
    await expect(pipe.transform('1e0', { type: 'param', metatype: Number, data: 'petId' })).resolves.toBe('1e0');
  });
});

describe('ids and decimals', () => {
  it('reads plain decimal digits only', () => {
    expect(parseDecimal('0042')).toBe(42);
    for (const text of ['1e0', '0x1', '+1', ' 1', '1.0', '', '12345678901234567', 5]) expect(parseDecimal(text)).toBeNaN();
  });

  it('turns a path id into a number from 1 to 2^53 - 1, naming the parameter otherwise', () => {
    expect(parseIdParam({ petId: '9007199254740991' }, 'petId')).toBe(9007199254740991);
    for (const params of [{ petId: '0' }, { petId: '9007199254740992' }, { petId: '1e0' }, { petId: 'abc' }, { other: '1' }, undefined]) {
      expect(() => parseIdParam(params, 'petId')).toThrow(new InvalidInputError('petId must be an integer from 1 to 9007199254740991'));
    }
  });
});
