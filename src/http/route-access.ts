import { Injectable, type ExecutionContext } from '@nestjs/common';
import type { Caller } from './caller';
import { IS_PUBLIC } from './public.decorator';
import { RouteReflector } from './route-reflector';

/** The scope a route requires of a key (auth's @RequireScope()). */
export const REQUIRED_SCOPE = 'animal-store:required-scope';

/** Why a route turns a caller away: it needs a key, or a key with a scope this one lacks. */
export type AccessRefusal = { readonly reason: 'key-required' } | { readonly reason: 'scope-missing'; readonly scope: string };

/**
 * Who a route lets in, read from its declarations: anyone on a @Public()
 * route, else a key with the scope the route requires, if any. Auth's
 * AccessGuard refuses by it; the rate limits ask it only to know whether a
 * request can reach its route's handler.
 */
@Injectable()
export class RouteAccess {
  constructor(private readonly reflector: RouteReflector) {}

  refusalOf(caller: Caller, context: ExecutionContext): AccessRefusal | undefined {
    const targets = [context.getHandler(), context.getClass()];
    if (caller.kind === 'anonymous') return this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets) ? undefined : { reason: 'key-required' };
    const scope = this.reflector.getAllAndOverride<string>(REQUIRED_SCOPE, targets);
    return scope === undefined || caller.scopes.includes(scope) ? undefined : { reason: 'scope-missing', scope };
  }
}
