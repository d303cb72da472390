import { ArgumentMetadata, Injectable, PipeTransform, ValidationError, ValidationPipe } from '@nestjs/common';
import { buildMessage, getMetadataStorage, ValidateBy, ValidationOptions } from 'class-validator';
import { InvalidInputError } from '../errors/domain/domain-error';
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

/**
 * Unicode Cc (U+0000 to U+001F, U+007F to U+009F) and the bidirectional
 * embeddings, overrides and isolates (U+202A to U+202E, U+2066 to U+2069),
 * which make a text display as something other than what it holds, as ranges
 * of a regular expression's character class (shared with the API document).
 * Joiners and marks (U+200C to U+200F) are not among them.
 */
export const CONTROL_OR_BIDI_RANGES = '\\u0000-\\u001F\\u007F-\\u009F\\u202A-\\u202E\\u2066-\\u2069';

const CONTROL_OR_BIDI = new RegExp(`[${CONTROL_OR_BIDI_RANGES}]`, 'u');

/** The first control or bidirectional formatting character of a string, as `U+XXXX`, or undefined. */
function firstControlCharacter(value: unknown): string | undefined {
  const found = typeof value === 'string' ? CONTROL_OR_BIDI.exec(value) : null;
  return found ? `U+${found[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}` : undefined;
}

/** A string without control characters or bidirectional formatting characters (see CONTROL_OR_BIDI_RANGES); the message names the first one. */
export function HasNoControlCharacters(validationOptions?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'hasNoControlCharacters',
      validator: {
        validate: (value) => typeof value === 'string' && firstControlCharacter(value) === undefined,
        defaultMessage: buildMessage((each, args) => {
          const found = firstControlCharacter(args?.value) ?? 'one';
          return `${each}$property must not contain control or bidirectional formatting characters (found ${found})`;
        }, validationOptions),
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

const declaredFields = new WeakMap<object, ReadonlySet<string>>();

/** The fields a DTO class declares rules for, as class-validator's whitelist knows them. */
function fieldsOf(metatype: object): ReadonlySet<string> {
  let fields = declaredFields.get(metatype);
  if (!fields) {
    const rules = getMetadataStorage().getTargetValidationMetadatas(metatype as new () => unknown, '', false, false);
    fields = new Set(rules.map((rule) => rule.propertyName));
    declaredFields.set(metatype, fields);
  }
  return fields;
}

/**
 * The value's own fields that its DTO does not declare, in the order sent.
 * class-validator's whitelist misses those named after members every object
 * inherits (`toString`, `constructor`, `hasOwnProperty`), which
 * class-transformer skips and Nest's pipe deletes (`__proto__`, `prototype`,
 * `constructor`) before it looks; own fields are compared here instead.
 */
function unknownFields(value: unknown, metatype: unknown): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || typeof metatype !== 'function') return [];
  const fields = fieldsOf(metatype);
  return fields.size ? Object.keys(value).filter((name) => !fields.has(name)) : [];
}

const WHERE: Partial<Record<ArgumentMetadata['type'], string>> = { body: 'Request body', query: 'Query' };

/**
 * The one global pipe: bodies are JSON objects, strict types (no "5" for 5),
 * unknown fields rejected, every failure raised as a domain error whose message
 * names the field. It hands DTOs to Nest's ValidationPipe, through its public
 * `transform`, and keeps a single path or query value from it (ADR 0059).
 */
@Injectable()
export class StrictValidationPipe implements PipeTransform {
  private readonly validation = new ValidationPipe({
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    // One message per field: the first rule it breaks.
    stopAtFirstError: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => new InvalidInputError(describe(errors).join('; ')),
  });

  /**
   * A body refused while it was read is raised here, after the guards. A
   * request body must be a JSON object (not absent, not null, not an array or
   * a scalar), whatever its route declares; class-transformer would otherwise
   * turn such a body into an empty DTO. A body or query nested too deep, or
   * with fields its DTO does not declare, is refused before class-transformer
   * copies it; every problem is named at once, unknown fields first. A single
   * path or query value (`@Param('petId')`) is passed on as sent: the
   * ValidationPipe would convert it with Number(), which reads "1e0", "0x1",
   * " 1" and "+1" as 1, so its own pipe (ParseIdPipe) parses it strictly.
   */
  async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body') {
      if (value instanceof RefusedBody) throw value.error;
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw new InvalidInputError('Request body must be a JSON object');
      }
    }
    if ((metadata.type === 'param' || metadata.type === 'query') && metadata.data !== undefined) return value;
    const where = WHERE[metadata.type];
    if (where === undefined) return this.validation.transform(value, metadata);
    if (nestsDeeperThan(value, MAX_BODY_DEPTH)) throw new InvalidInputError(`${where} has nesting deeper than ${MAX_BODY_DEPTH} levels`);
    const unknown = unknownFields(value, metadata.metatype);
    if (!unknown.length) return this.validation.transform(value, metadata);
    const known = Object.fromEntries(Object.entries(value as object).filter(([name]) => !unknown.includes(name)));
    const otherProblems = await this.validation.transform(known, metadata).then(
      () => [],
      (error: unknown) => {
        if (error instanceof InvalidInputError) return [error.message];
        throw error;
      },
    );
    throw new InvalidInputError([...unknown.map((name) => `property ${name} should not exist`), ...otherProblems].join('; '));
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
