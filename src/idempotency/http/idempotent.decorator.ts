import { applyDecorators, UseInterceptors } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import { IDEMPOTENCY_KEY_HEADER } from '../domain/idempotency-key';
import { IdempotencyInterceptor } from './idempotency.interceptor';

/**
 * Makes a create-like route safe to retry: with an `Idempotency-Key`, a retry
 * with the same key and body gets the first answer instead of acting again.
 * The route's module imports IdempotencyModule; its responses 409 and 422 are
 * declared with the route's other responses.
 */
export const Idempotent = (): MethodDecorator =>
  applyDecorators(
    UseInterceptors(IdempotencyInterceptor),
    ApiHeader({
      name: IDEMPOTENCY_KEY_HEADER,
      required: false,
      description: 'Makes the create safe to retry; scoped to the API key. 1 to 255 printable ASCII characters, e.g. a UUID.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
    }),
  );
