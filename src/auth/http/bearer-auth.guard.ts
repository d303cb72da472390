import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isApiRequest } from '../../http/api-route';
import { callerOf } from '../../http/request-context';
import { CallerLookup } from '../application/caller-lookup';
import { UnauthorizedError } from '../domain/api-key.errors';

export const WWW_AUTHENTICATE = 'Bearer realm="animal-store"';

/** Every `/v1` operation needs an active API key; the 401 never says why one was refused. */
@Injectable()
export class BearerAuthGuard implements CanActivate {
  constructor(private readonly callers: CallerLookup) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    if (!isApiRequest(request) || (await callerOf(request, this.callers))) return true;
    http.getResponse<FastifyReply>().header('WWW-Authenticate', WWW_AUTHENTICATE);
    throw new UnauthorizedError();
  }
}
