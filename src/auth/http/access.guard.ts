import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '../../callers/caller';
import { CallerLookup } from '../../http/caller-lookup';
import { ConditionalAnswers } from '../../http/conditional-answers';
import { IS_PUBLIC } from '../../http/public.decorator';
import { InsufficientScopeError, UnauthorizedError } from '../domain/api-key.errors';
import { grantsScope } from '../domain/scope';
import { REQUIRED_SCOPE } from './require-scope.decorator';

export const WWW_AUTHENTICATE = 'Bearer realm="animal-store"';

/**
 * The last global guard: a route needs an active API key unless it is marked
 * @Public(), and a key with the scope the route requires (@RequireScope()).
 * The 401 never says why a key was refused; the 403 names the missing scope
 * (RFC 6750 section 3.1). A refusal is no 304, so a count the rate limits put
 * off for one is paid first (ConditionalAnswers), and may turn it into a 429.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  constructor(
    private readonly callers: CallerLookup,
    private readonly reflector: Reflector,
    private readonly answers: ConditionalAnswers,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const targets = [context.getHandler(), context.getClass()];
    // A route open to anyone needs no caller: a key sent to an endpoint the rate limits skip costs no lookup.
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    const caller = await this.callers.find(http.getRequest<FastifyRequest>());
    const scope = this.reflector.getAllAndOverride<string | undefined>(REQUIRED_SCOPE, targets);
    if (isLetIn(caller, scope)) return true;
    await this.answers.settle(http.getRequest<FastifyRequest>(), false);
    const reply = http.getResponse<FastifyReply>();
    if (caller.kind === 'anonymous') {
      reply.header('WWW-Authenticate', WWW_AUTHENTICATE);
      throw new UnauthorizedError();
    }
    reply.header('WWW-Authenticate', `${WWW_AUTHENTICATE}, error="insufficient_scope", scope="${scope}"`);
    throw new InsufficientScopeError(scope as string);
  }
}

/** A key, holding the route's scope if it requires one. */
function isLetIn(caller: Caller, scope: string | undefined): boolean {
  return caller.kind === 'key' && (scope === undefined || grantsScope(caller.scopes, scope));
}
