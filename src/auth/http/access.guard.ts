import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { IS_PUBLIC } from '../../http/public.decorator';
import { callerOf } from '../../http/request-context';
import { RouteReflector } from '../../http/route-reflector';
import { UnauthorizedError } from '../domain/api-key.errors';

export const WWW_AUTHENTICATE = 'Bearer realm="animal-store"';

/**
 * The last global guard: a route needs an active API key unless it is marked
 * @Public(). The 401 never says why a key was refused.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  constructor(private readonly reflector: RouteReflector) {}

  canActivate(context: ExecutionContext): boolean {
    const http = context.switchToHttp();
    if (callerOf(http.getRequest<FastifyRequest>()).kind === 'key' || this.isPublic(context)) return true;
    http.getResponse<FastifyReply>().header('www-authenticate', WWW_AUTHENTICATE);
    throw new UnauthorizedError();
  }

  private isPublic(context: ExecutionContext): boolean {
    return this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]) === true;
  }
}
