import type { ServerResponse } from 'node:http';
import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { callerOf, requestState } from '../../http/request-context';
import { OpsMetrics } from '../../ops/metrics';
import { ConcurrencyLimiter } from '../application/concurrency-limiter';
import type { InFlightSlot } from '../domain/concurrency-store';
import { RateLimitRejection } from '../domain/rate-limit.errors';
import { concurrencyPolicyItem } from './rate-limit-headers';

/**
 * The concurrency cap, the last global guard: a request the other guards let
 * in takes one of its caller's places in flight (trackerOf: the key's
 * account, or the client address) and gives it back when its answer is
 * done, whatever the answer, and when the connection is cut off. Over the cap
 * it is 429 `rate_limited` with `Retry-After`, tallied toward no ban (a burst
 * is no abuse), and its `RateLimit-Policy` names the cap
 * after the plan's windows. Only what the rate limits counted is capped, as
 * the same caller (PlanThrottlerGuard leaves whom in the request state), so a
 * route they skip, such as the operational endpoints, is not.
 */
@Injectable()
export class ConcurrencyCapGuard implements CanActivate {
  constructor(
    private readonly concurrency: ConcurrencyLimiter,
    private readonly metrics: OpsMetrics,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const limited = requestState(request).rateLimitedAs;
    if (limited === undefined) return true;
    const reply = http.getResponse<FastifyReply>();
    const cap = this.concurrency.capOf(callerOf(request));
    let slot: InFlightSlot;
    try {
      slot = await this.concurrency.acquire(limited.tracker, cap);
    } catch (error) {
      if (error instanceof RateLimitRejection) {
        this.metrics.countRejection(error.code);
        reply.header('Retry-After', error.retryAfterSeconds);
        // The plan's windows, as the throttler wrote them for this request, and the cap that refused it.
        const policy = reply.getHeader('RateLimit-Policy');
        reply.header('RateLimit-Policy', policy ? `${String(policy)}, ${concurrencyPolicyItem(cap)}` : concurrencyPolicyItem(cap));
      }
      throw error;
    }
    releaseWhenAnswered(reply.raw, slot);
    return true;
  }
}

/** The raw response's 'close' follows a sent answer, an error's and a cut-off connection's alike; one that came while the place was taken has passed. */
function releaseWhenAnswered(response: ServerResponse, slot: InFlightSlot): void {
  if (response.closed) {
    void slot.release();
    return;
  }
  response.once('close', () => void slot.release());
}
