import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest, preHandlerHookHandler } from 'fastify';
import { CallerLookup } from '../../http/caller-lookup';
import { isApiPath } from '../../http/private-answers';
import { OpsMetrics } from '../../ops/metrics';
import { RateLimiter } from '../application/rate-limiter';
import { writeRateLimitHeaders } from './rate-limit-headers';
import { rateLimitedCallerOf } from './rate-limited-caller';

/**
 * A /v1 request that reaches Fastify's not-found handler instead of a route
 * counts against its caller as every /v1 answer does: Nest sends a request
 * whose route parameter is empty (`/v1/pets/`) there, past every guard, where
 * the catch-all route would have counted it. Fastify runs this preHandler hook
 * on the not-found handler too; a matched route never sees it act. The
 * request pipeline (request-pipeline.ts) registers it.
 */
@Injectable()
export class UnmatchedRouteCharges {
  constructor(
    private readonly callers: CallerLookup,
    private readonly limiter: RateLimiter,
    private readonly metrics: OpsMetrics,
  ) {}

  /** The preHandler hook: synchronous for a matched route, so it costs that route no promise. */
  readonly chargeUnmatchedRoute: preHandlerHookHandler = (request, reply, done) => {
    if (!request.is404 || !isApiPath(request.url)) return done();
    this.charge(request, reply).then(() => done(), done);
  };

  private async charge(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const caller = await this.callers.find(request);
    const verdict = await this.limiter.admit({ caller: rateLimitedCallerOf(caller) });
    writeRateLimitHeaders(reply, verdict);
    if (!verdict.refusal) return;
    this.metrics.countRejection(verdict.refusal.code);
    throw verdict.refusal;
  }
}
