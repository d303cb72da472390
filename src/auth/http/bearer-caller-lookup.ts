import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { Caller } from '../../http/caller';
import { CallerLookup } from '../../http/caller-lookup';
import { clientAddressOf } from '../../http/client-address';
import { AuthenticationService } from '../application/authentication.service';

/** `Bearer <token>`, the scheme name in any case; anything else yields no token. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const match = /^bearer[ \t]+([^\s]+)[ \t]*$/i.exec(authorization ?? '');
  return match?.[1];
}

/**
 * The caller named by the request's Authorization header: an active key's,
 * or anonymous with its client address. It refuses nothing: the rate limits
 * count the request against it first, then AccessGuard decides whether it may in.
 */
@Injectable()
export class BearerCallerLookup extends CallerLookup {
  constructor(private readonly authentication: AuthenticationService) {
    super();
  }

  protected async identify(request: FastifyRequest): Promise<Caller> {
    const token = bearerToken(request.headers.authorization);
    const found = token === undefined ? null : await this.authentication.authenticate(token);
    if (found) {
      const { key, limits } = found;
      return { kind: 'key', keyId: key.id, accountId: key.account.id, plan: key.plan, limits, scopes: key.scopes };
    }
    return { kind: 'anonymous', address: clientAddressOf(request), limits: this.authentication.anonymousLimits() };
  }
}
