import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { AnonymousCaller, Caller } from '../../callers/caller';
import { CallerLookup } from '../../http/caller-lookup';
import { clientAddressOf } from '../../http/client-address';
import { KeyLookupGate } from '../../http/key-lookup-gate';
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
 * A key this instance has not verified lately is looked up only while its
 * address is within its keyless limits (KeyLookupGate); else the caller is
 * the address, its key not looked up, which the rate limits refuse.
 */
@Injectable()
export class BearerCallerLookup extends CallerLookup {
  constructor(
    private readonly authentication: AuthenticationService,
    private readonly gate: KeyLookupGate,
  ) {
    super();
  }

  protected async identify(request: FastifyRequest): Promise<Caller> {
    const token = bearerToken(request.headers.authorization);
    if (token === undefined) return this.anonymous(request);
    if (this.authentication.wouldLookUpUnverified(token)) {
      const address = this.anonymous(request);
      if (!(await this.gate.admits(address))) return { ...address, keyNotLookedUp: true };
    }
    const found = await this.authentication.authenticate(token);
    if (found) {
      const { key, limits } = found;
      return { kind: 'key', keyId: key.id, accountId: key.account.id, plan: key.plan, limits, scopes: key.scopes };
    }
    return this.anonymous(request);
  }

  private anonymous(request: FastifyRequest): AnonymousCaller {
    return { kind: 'anonymous', address: clientAddressOf(request), limits: this.authentication.anonymousLimits() };
  }
}
