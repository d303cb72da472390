import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CallerLookup } from '../../http/caller-lookup';
import { isApiPath } from '../../http/private-answers';
import { OpsMetrics } from '../../ops/metrics';
import { planWindowsOf, RateLimiter } from '../application/rate-limiter';
import { rejectionOf } from './plan-throttler.guard';
import { writeRateLimitHeaders } from './rate-limit-headers';
import { banSubjectOf, trackerOf } from './rate-limited-caller';

/**
 * A /v1 request that reaches Fastify's not-found handler instead of a route
 * counts against its caller as every /v1 answer does: Nest sends a request
 * whose route parameter is empty (`/v1/pets/`) there, past every guard, where
 * the catch-all route would have counted it. Fastify runs this preHandler hook
 * on the not-found handler too; a matched route never sees it act.
 */
@Injectable()
export class UnmatchedRouteCharges implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly callers: CallerLookup,
    private readonly limiter: RateLimiter,
    private readonly metrics: OpsMetrics,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    fastify?.addHook('preHandler', (request, reply) => this.charge(request, reply));
  }

  private async charge(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (!request.is404 || !isApiPath(request.url)) return;
    const caller = await this.callers.find(request);
    const decision = await this.limiter.consume(trackerOf(caller), planWindowsOf(caller.limits), banSubjectOf(caller));
    writeRateLimitHeaders(reply, decision);
    if (decision.allowed) return;
    const rejection = rejectionOf(decision);
    this.metrics.countRejection(rejection.code);
    throw rejection;
  }
}
