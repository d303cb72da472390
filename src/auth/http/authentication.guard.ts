import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { Caller } from '../../http/caller';
import { setCaller } from '../../http/request-context';
import { AuthenticationService } from '../application/authentication.service';

/** `Bearer <token>`, the scheme name in any case; anything else yields no token. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const match = /^bearer[ \t]+([^\s]+)[ \t]*$/i.exec(authorization ?? '');
  return match?.[1];
}

/**
 * The first global guard: finds the request's caller once, from its
 * Authorization header, and puts it in the request context. It refuses
 * nothing: the rate limits count the request first (against the key's
 * account, or the client address), then AccessGuard decides whether the caller may in.
 */
@Injectable()
export class AuthenticationGuard implements CanActivate {
  constructor(private readonly authentication: AuthenticationService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    setCaller(request, await this.callerOf(request));
    return true;
  }

  private async callerOf(request: FastifyRequest): Promise<Caller> {
    const token = bearerToken(request.headers.authorization);
    const found = token === undefined ? null : await this.authentication.authenticate(token);
    if (found) {
      const { key, limits } = found;
      return { kind: 'key', keyId: key.id, accountId: key.account.id, plan: key.plan, limits, scopes: key.scopes };
    }
    return { kind: 'anonymous', address: request.ip, limits: this.authentication.anonymousLimits() };
  }
}
