import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import type { Scope } from '../domain/scope';

export const REQUIRED_SCOPE = 'animal-store:required-scope';

/**
 * The scope a key needs for this operation: a key without it gets 403
 * `insufficient_scope` (AccessGuard). The API document lists it under
 * `x-required-scopes`; declare the 403 with the operation's other responses.
 */
export const RequireScope = (scope: Scope): MethodDecorator =>
  applyDecorators(SetMetadata(REQUIRED_SCOPE, scope), ApiExtension('x-required-scopes', [scope]));
