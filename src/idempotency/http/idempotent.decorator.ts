import { applyDecorators, SetMetadata, UseInterceptors } from '@nestjs/common';
import { ApiHeader, ApiResponse } from '@nestjs/swagger';
import { errorBody } from '../../errors/http/error-statuses';
import { ErrorResponse } from '../../errors/http/error.response';
import { DocumentRoute } from '../../http/route-docs';
import { IDEMPOTENCY_KEY_HEADER } from '../domain/idempotency-key';
import { IDEMPOTENCY_KEY_IN_USE, IDEMPOTENCY_KEY_REUSED } from '../domain/idempotency.errors';
import { IdempotencyInterceptor } from './idempotency.interceptor';

/** Marks an @Idempotent() route; IdempotencyModule checks at start-up that such a route requires an API key. */
export const IDEMPOTENT = 'animal-store:idempotent';

/**
 * Makes a create-like route safe to retry: with an `Idempotency-Key`, a retry
 * with the same key and body gets the first answer instead of acting again
 * (IdempotencyInterceptor). The route must require an API key, which scopes
 * the Idempotency-Key, and its module imports IdempotencyModule. The API
 * document gets the header, the 409 and 422 and the replay's header from here.
 */
export const Idempotent = (): MethodDecorator =>
  applyDecorators(
    SetMetadata(IDEMPOTENT, true),
    UseInterceptors(IdempotencyInterceptor),
    ApiHeader({
      name: IDEMPOTENCY_KEY_HEADER,
      required: false,
      description:
        'Makes the create safe to retry; scoped to the API key and kept for this operation alone. 1 to 255 printable ASCII characters, e.g. a UUID, ' +
        'as they are or as a structured-field string (`"abc"` is the key `abc`).',
      // A structured-field string may escape every character of a key of 255, and adds its quotes.
      schema: { type: 'string', minLength: 1, maxLength: 512, pattern: '^[\\x20-\\x7E]+$' },
    }),
    ApiResponse({
      status: 409,
      description:
        '`idempotency_key_in_use`: a request with the same `Idempotency-Key` is still being processed; retry later with the same key and body',
      type: ErrorResponse,
      example: errorBody(IDEMPOTENCY_KEY_IN_USE),
    }),
    ApiResponse({
      status: 422,
      description: '`idempotency_key_reused`: the `Idempotency-Key` was already used with a different body, or for another operation',
      type: ErrorResponse,
      example: errorBody(IDEMPOTENCY_KEY_REUSED),
    }),
    DocumentRoute('idempotent', {
      successHeaders: {
        'Idempotent-Replayed': {
          description: 'Present, `true`, when this is the stored answer to an earlier request with the same `Idempotency-Key` and body',
          schema: { type: 'string', enum: ['true'] },
        },
      },
    }),
  );
