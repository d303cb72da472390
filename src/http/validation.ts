import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { InvalidInputError } from '../errors/domain-error';

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

function describe(errors: ValidationError[]): string[] {
  return errors.flatMap((error) => {
    const own = Object.values(error.constraints ?? {});
    return own.length ? own : describe(error.children ?? []);
  });
}

const OWN_PIPE_TYPES = new WeakSet<object>();

/**
 * Marks a parameter class that its route checks with a pipe of its own (on a hot
 * path, where class-validator costs more than the rules): the global
 * ValidationPipe leaves it alone, and the class still documents the parameter.
 */
export function ValidatedByOwnPipe(): ClassDecorator {
  return (target) => void OWN_PIPE_TYPES.add(target);
}

class StrictValidationPipe extends ValidationPipe {
  /**
   * A request body must be a JSON object (not absent, not null, not an array or
   * a scalar), whatever checks its route adds. Checked here rather than by a
   * pipe of its own, which every parameter of every request would also pass through.
   */
  override transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && (typeof value !== 'object' || value === null || Array.isArray(value))) {
      throw new InvalidInputError('Request body must be a JSON object');
    }
    return super.transform(value, metadata);
  }

  protected override toValidate(metadata: ArgumentMetadata): boolean {
    return !(metadata.metatype && OWN_PIPE_TYPES.has(metadata.metatype)) && super.toValidate(metadata);
  }

  /**
   * No implicit conversion of path and query strings: Number() would read
   * "1e0", "0x1", " 1" and "+1" as 1. Parameters are parsed strictly where
   * they are read (parseIdParam, the list query's pipe).
   */
  protected override transformPrimitive(value: unknown): unknown {
    return value;
  }
}

/**
 * The one global pipe: bodies are JSON objects, strict types (no "5" for 5),
 * unknown fields rejected, every failure raised as a domain error whose message
 * names the field.
 */
export function createValidationPipe(): ValidationPipe {
  return new StrictValidationPipe({
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    stopAtFirstError: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => new InvalidInputError(describe(errors).join('; ')),
  });
}

/**
 * A path parameter that is an id: decimal digits, 1 to 2^53 - 1. A function
 * rather than a pipe: Nest passes every pipeable parameter through an async
 * chain of the global and the parameter's own pipes, and on a get that chain
 * was a quarter of all the work the service adds to a bare Fastify server
 * (README, "Performance"), so a hot route reads its path from the request.
 */
export function parseIdParam(params: unknown, name: string): number {
  const id = parseDecimal((params as Partial<Record<string, unknown>> | undefined)?.[name]);
  if (!isPositiveSafeInteger(id)) throw new InvalidInputError(`${name} must be an integer from 1 to ${MAX_ID}`);
  return id;
}
