import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isApiRequest } from '../../http/api-route';
import { UnauthorizedError } from '../domain/api-key.errors';
import { CallerResolver } from './caller-resolver';

export const WWW_AUTHENTICATE = 'Bearer realm="animal-store"';

/** Every `/v1` operation needs an active API key; the 401 never says why one was refused. */
@Injectable()
export class BearerAuthGuard implements CanActivate {
  constructor(private readonly callers: CallerResolver) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    if (!isApiRequest(request)) return true;
    if (await this.callers.resolve(request)) return true;
    http.getResponse<FastifyReply>().header('WWW-Authenticate', WWW_AUTHENTICATE);
    throw new UnauthorizedError();
  }
}
