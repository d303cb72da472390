import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { IS_PUBLIC } from '../../http/public.decorator';
import { callerOf } from '../../http/request-context';
import { RouteReflector } from '../../http/route-reflector';
import { InsufficientScopeError, UnauthorizedError } from '../domain/api-key.errors';
import { REQUIRED_SCOPE } from './require-scope.decorator';

export const WWW_AUTHENTICATE = 'Bearer realm="animal-store"';

/**
 * The last global guard: a route needs an active API key unless it is marked
 * @Public(), and a key with the scope the route requires (@RequireScope()).
 * The 401 never says why a key was refused; the 403 names the missing scope
 * (RFC 6750 section 3.1).
 */
@Injectable()
export class AccessGuard implements CanActivate {
  constructor(private readonly reflector: RouteReflector) {}

  canActivate(context: ExecutionContext): boolean {
    const http = context.switchToHttp();
    const caller = callerOf(http.getRequest<FastifyRequest>());
    const reply = http.getResponse<FastifyReply>();
    if (caller.kind === 'anonymous') {
      if (this.routeSays<boolean>(IS_PUBLIC, context)) return true;
      reply.header('www-authenticate', WWW_AUTHENTICATE);
      throw new UnauthorizedError();
    }
    const scope = this.routeSays<string>(REQUIRED_SCOPE, context);
    if (scope === undefined || caller.scopes.includes(scope)) return true;
    reply.header('www-authenticate', `${WWW_AUTHENTICATE}, error="insufficient_scope", scope="${scope}"`);
    throw new InsufficientScopeError(scope);
  }

  private routeSays<T>(key: string, context: ExecutionContext): T | undefined {
    return this.reflector.getAllAndOverride<T>(key, [context.getHandler(), context.getClass()]);
  }
}
