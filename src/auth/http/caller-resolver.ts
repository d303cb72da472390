import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ApiKeyAuthenticator } from '../application/api-key-authenticator';
import { ApiKey } from '../domain/api-key';

const CALLER = Symbol('animal-store.caller');

type RequestWithCaller = FastifyRequest & { [CALLER]?: Promise<ApiKey | null> };

/** `Bearer <token>`, the scheme name in any case; anything else yields no token. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const match = /^bearer[ \t]+([^\s]+)[ \t]*$/i.exec(authorization ?? '');
  return match?.[1];
}

/**
 * The API key behind a request, resolved once per request however many guards
 * (rate limiting, authentication) or filters ask for it.
 */
@Injectable()
export class CallerResolver {
  constructor(private readonly authenticator: ApiKeyAuthenticator) {}

  resolve(request: FastifyRequest): Promise<ApiKey | null> {
    const memo = request as RequestWithCaller;
    if (!memo[CALLER]) {
      const token = bearerToken(request.headers.authorization);
      memo[CALLER] = token ? this.authenticator.authenticate(token) : Promise.resolve(null);
    }
    return memo[CALLER];
  }
}
