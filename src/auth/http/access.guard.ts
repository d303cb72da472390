import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { callerOf } from '../../http/request-context';
import { RouteAccess } from '../../http/route-access';
import { InsufficientScopeError, UnauthorizedError } from '../domain/api-key.errors';

export const WWW_AUTHENTICATE = 'Bearer realm="animal-store"';

/**
 * The last global guard: a route needs an active API key unless it is marked
 * @Public(), and a key with the scope the route requires (@RequireScope()).
 * The 401 never says why a key was refused; the 403 names the missing scope
 * (RFC 6750 section 3.1).
 */
@Injectable()
export class AccessGuard implements CanActivate {
  constructor(private readonly access: RouteAccess) {}

  canActivate(context: ExecutionContext): boolean {
    const http = context.switchToHttp();
    const refusal = this.access.refusalOf(callerOf(http.getRequest<FastifyRequest>()), context);
    if (refusal === undefined) return true;
    const reply = http.getResponse<FastifyReply>();
    if (refusal.reason === 'key-required') {
      reply.header('www-authenticate', WWW_AUTHENTICATE);
      throw new UnauthorizedError();
    }
    reply.header('www-authenticate', `${WWW_AUTHENTICATE}, error="insufficient_scope", scope="${refusal.scope}"`);
    throw new InsufficientScopeError(refusal.scope);
  }
}
