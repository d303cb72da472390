import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ApiKeyAuthenticator } from '../application/api-key-authenticator';
import { ApiKey } from '../domain/api-key';

const CALLER = Symbol('animal-store.caller');

type Caller = ApiKey | null | Promise<ApiKey | null>;
type RequestWithCaller = FastifyRequest & { [CALLER]?: Caller };

/** `Bearer <token>`, the scheme name in any case; anything else yields no token. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const match = /^bearer[ \t]+([^\s]+)[ \t]*$/i.exec(authorization ?? '');
  return match?.[1];
}

/**
 * The API key behind a request, resolved once per request however many guards
 * (rate limiting, authentication) or filters ask for it. Like the
 * authenticator, it answers at once when the key is known, and with a promise
 * only while the store is asked.
 */
@Injectable()
export class CallerResolver {
  constructor(private readonly authenticator: ApiKeyAuthenticator) {}

  resolve(request: FastifyRequest): Caller {
    const memo = request as RequestWithCaller;
    if (memo[CALLER] === undefined) {
      const token = bearerToken(request.headers.authorization);
      memo[CALLER] = token ? this.authenticator.authenticate(token) : null;
    }
    return memo[CALLER];
  }
}
