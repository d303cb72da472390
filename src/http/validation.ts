import { ArgumentMetadata, Injectable, PipeTransform, ValidationError, ValidationPipe } from '@nestjs/common';
import { buildMessage, ValidateBy, ValidationOptions } from 'class-validator';
import { InvalidInputError } from '../errors/domain-error';
import { RefusedBody } from './json-body';

/** 2^53 - 1: the largest integer every JSON client reads exactly. */
export const MAX_ID = Number.MAX_SAFE_INTEGER;

export function isPositiveSafeInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1;
}

/**
 * A decimal string (query or path parameter, decoded cursor) as a number, or
 * NaN: no sign, no fraction, no exponent, no white space.
 */
export function parseDecimal(text: unknown): number {
  return typeof text === 'string' && /^\d{1,16}$/.test(text) ? Number(text) : NaN;
}

/**
 * An id: a JSON integer from 1 to 2^53 - 1. `@IsInt()` alone would pass the
 * integers beyond that, which JSON.parse has already rounded.
 */
export function IsId(validationOptions?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isId',
      validator: {
        validate: isPositiveSafeInteger,
        defaultMessage: buildMessage((each) => `${each}$property must be an integer from 1 to ${MAX_ID}`, validationOptions),
      },
    },
    validationOptions,
  );
}

/** A string of `min` to `max` characters counted in code points, as MySQL's utf8mb4 VARCHAR counts them. */
export function CodePointLength(min: number, max: number, validationOptions?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'codePointLength',
      constraints: [min, max],
      validator: {
        validate: (value) => {
          const length = typeof value === 'string' ? [...value].length : -1;
          return length >= min && length <= max;
        },
        defaultMessage: buildMessage((each) => `${each}$property must have ${min} to ${max} characters`, validationOptions),
      },
    },
    validationOptions,
  );
}

/**
 * A string that UTF-8 can hold exactly: no UTF-16 surrogate without its partner,
 * which a store would replace with U+FFFD and so keep something other than what was sent.
 */
export function IsWellFormedUnicode(validationOptions?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isWellFormedUnicode',
      validator: {
        validate: (value) => typeof value === 'string' && !/\p{Surrogate}/u.test(value),
        defaultMessage: buildMessage((each) => `${each}$property must not contain an unpaired UTF-16 surrogate`, validationOptions),
      },
    },
    validationOptions,
  );
}

/** One message per field, in the order class-validator reports them (unknown fields first). */
function describe(errors: ValidationError[]): string[] {
  return errors.flatMap((error) => {
    const own = Object.values(error.constraints ?? {});
    return own.length ? own : describe(error.children ?? []);
  });
}

/**
 * Deeper than any body a route declares, and shallow enough for class-transformer,
 * which copies a body recursively and would run out of stack on a small body of
 * deeply nested arrays.
 */
export const MAX_BODY_DEPTH = 32;

/** Whether an object or array sits `limit` levels below the value; walked without recursion, for the same reason. */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 0]];
  while (pending.length) {
    const [node, depth] = pending.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth === limit) return true;
    for (const child of Object.values(node)) pending.push([child, depth + 1]);
  }
  return false;
}

/**
 * The one global pipe: bodies are JSON objects, strict types (no "5" for 5),
 * unknown fields rejected, every failure raised as a domain error whose message
 * names the field.
 */
@Injectable()
export class StrictValidationPipe extends ValidationPipe {
  constructor() {
    super({
      transform: true,
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      // One message per field: the first rule it breaks.
      stopAtFirstError: true,
      validationError: { target: false, value: false },
      exceptionFactory: (errors) => new InvalidInputError(describe(errors).join('; ')),
    });
  }

  /**
   * A body refused while it was read is raised here, after the guards. A
   * request body must be a JSON object (not absent, not null, not an array or
   * a scalar), whatever its route declares; class-transformer would otherwise
   * turn such a body into an empty DTO.
   */
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body') {
      if (value instanceof RefusedBody) throw value.error;
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw new InvalidInputError('Request body must be a JSON object');
      }
      if (nestsDeeperThan(value, MAX_BODY_DEPTH)) {
        throw new InvalidInputError(`Request body must not nest more than ${MAX_BODY_DEPTH} levels deep`);
      }
    }
    return super.transform(value, metadata);
  }

  /**
   * No implicit conversion of a single path or query value: Number() would read
   * "1e0", "0x1", " 1" and "+1" as 1. Such values are parsed strictly by their
   * own pipe (ParseIdPipe) or by a DTO's @Transform.
   */
  protected override transformPrimitive(value: unknown): unknown {
    return value;
  }
}

/**
 * A path parameter that is an id: plain decimal digits, 1 to 2^53 - 1; the
 * message names the parameter. Use as `@Param('petId', ParseIdPipe)`.
 */
@Injectable()
export class ParseIdPipe implements PipeTransform<unknown, number> {
  transform(value: unknown, { data }: ArgumentMetadata): number {
    const id = parseDecimal(value);
    if (!isPositiveSafeInteger(id)) throw new InvalidInputError(`${data ?? 'id'} must be an integer from 1 to ${MAX_ID}`);
    return id;
  }
}
