import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension, ApiResponse } from '@nestjs/swagger';
import { errorBody } from '../../errors/http/error-statuses';
import { ErrorResponse } from '../../errors/http/error.response';
import { INSUFFICIENT_SCOPE } from '../domain/api-key.errors';
import type { Scope } from '../domain/scope';

/** The scope a route requires of a key, read by AccessGuard. */
export const REQUIRED_SCOPE = 'animal-store:required-scope';

/**
 * The scope a key needs for this operation, one its module declared with
 * defineScope(): a key without it gets 403 `insufficient_scope` (AccessGuard).
 * The API document lists the scope under `x-required-scopes` and the 403.
 */
export const RequireScope = (scope: Scope): MethodDecorator =>
  applyDecorators(
    SetMetadata(REQUIRED_SCOPE, scope),
    ApiExtension('x-required-scopes', [scope]),
    ApiResponse({
      status: 403,
      description: '`insufficient_scope`: the API key is valid but lacks the scope the operation needs (`x-required-scopes`)',
      type: ErrorResponse,
      example: errorBody(INSUFFICIENT_SCOPE, `This API key lacks the scope ${scope}, which this operation needs`),
      headers: {
        'WWW-Authenticate': {
          required: true,
          description: 'RFC 6750: the error and the scope the operation needs',
          schema: { type: 'string', pattern: '^Bearer realm="animal-store", error="insufficient_scope", scope="[a-z:]+"$' },
        },
      },
    }),
  );
