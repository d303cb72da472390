import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '../../callers/caller';
import { CallerLookup } from '../../http/caller-lookup';
import { IS_PUBLIC } from '../../http/public.decorator';
import { RouteAccess } from '../../http/route-access';
import { InsufficientScopeError, UnauthorizedError } from '../domain/api-key.errors';
import { grantsScope } from '../domain/scope';
import { REQUIRED_SCOPE } from './require-scope.decorator';

export const WWW_AUTHENTICATE = 'Bearer realm="animal-store"';

/** A route lets in anyone when it is @Public(), else a key holding the scope it requires (@RequireScope()), if any. */
@Injectable()
export class ScopedRouteAccess extends RouteAccess {
  constructor(private readonly reflector: Reflector) {
    super();
  }

  admits(caller: Caller, context: ExecutionContext): boolean {
    return isPublic(this.reflector, context) || isLetIn(caller, requiredScope(this.reflector, context));
  }
}

/**
 * The global guard after the rate limits: a route needs an active API key
 * unless it is marked @Public(), and a key with the scope the route requires
 * (@RequireScope()). The 401 never says why a key was refused; the 403 names
 * the missing scope (RFC 6750 section 3.1).
 */
@Injectable()
export class AccessGuard implements CanActivate {
  constructor(
    private readonly callers: CallerLookup,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    // A route open to anyone needs no caller: a key sent to an endpoint the rate limits skip costs no lookup.
    if (isPublic(this.reflector, context)) return true;
    const caller = await this.callers.find(http.getRequest<FastifyRequest>());
    const scope = requiredScope(this.reflector, context);
    if (isLetIn(caller, scope)) return true;
    const reply = http.getResponse<FastifyReply>();
    if (caller.kind === 'anonymous') {
      reply.header('WWW-Authenticate', WWW_AUTHENTICATE);
      throw new UnauthorizedError();
    }
    reply.header('WWW-Authenticate', `${WWW_AUTHENTICATE}, error="insufficient_scope", scope="${scope}"`);
    throw new InsufficientScopeError(scope as string);
  }
}

function isPublic(reflector: Reflector, context: ExecutionContext): boolean {
  return reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]) === true;
}

function requiredScope(reflector: Reflector, context: ExecutionContext): string | undefined {
  return reflector.getAllAndOverride<string | undefined>(REQUIRED_SCOPE, [context.getHandler(), context.getClass()]);
}

/** A key, holding the route's scope if it requires one. */
function isLetIn(caller: Caller, scope: string | undefined): boolean {
  return caller.kind === 'key' && (scope === undefined || grantsScope(caller.scopes, scope));
}
