import type { ServerResponse } from 'node:http';
import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
// The metadata key of @SkipThrottle(), which the package does not re-export from its index.
import { THROTTLER_SKIP } from '@nestjs/throttler/dist/throttler.constants';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { callerOf } from '../../http/request-context';
import { RouteReflector } from '../../http/route-reflector';
import { OpsMetrics } from '../../ops/metrics';
import { ConcurrencyLimiter } from '../application/concurrency-limiter';
import type { InFlightSlot } from '../domain/concurrency-store';
import { RateLimitRejection } from '../domain/rate-limit.errors';
import { OWN_BAN } from './own-ban.decorator';
import { concurrencyPolicyItem } from './rate-limit-headers';
import { banSubjectOf, trackerOf } from './rate-limited-caller';

/** A bare @SkipThrottle(): the library files it under its `default` throttler. */
const SKIP_EVERY_WINDOW = `${THROTTLER_SKIP}default`;

/**
 * The concurrency cap, the last global guard: a request the other guards let
 * in takes one of its caller's places in flight (trackerOf: the key's
 * account, or the client address) and gives it back when its answer is
 * done, whatever the answer, and when the connection is cut off. Over the cap
 * it is 429 `rate_limited` with `Retry-After`, tallied toward the key's ban as
 * any rate limit's refusal is, and its `RateLimit-Policy` names the cap
 * after the plan's windows. A bare @SkipThrottle() route (the operational
 * endpoints) is not capped.
 */
@Injectable()
export class ConcurrencyCapGuard implements CanActivate {
  constructor(
    private readonly concurrency: ConcurrencyLimiter,
    private readonly reflector: RouteReflector,
    private readonly metrics: OpsMetrics,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(SKIP_EVERY_WINDOW, targets) === true) return true;
    const http = context.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const caller = callerOf(http.getRequest<FastifyRequest>());
    const cap = this.concurrency.capOf(caller);
    const ownBanRoute = this.reflector.getAllAndOverride<boolean>(OWN_BAN, targets) === true ? `${context.getClass().name}.${context.getHandler().name}` : undefined;
    let slot: InFlightSlot;
    try {
      slot = await this.concurrency.acquire(trackerOf(caller), cap, banSubjectOf(caller, ownBanRoute));
    } catch (error) {
      if (error instanceof RateLimitRejection) {
        this.metrics.countRejection(error.code);
        reply.header('retry-after', error.retryAfterSeconds);
        // The plan's windows, as the throttler wrote them for this request, and the cap that refused it.
        const policy = reply.getHeader('ratelimit-policy');
        reply.header('ratelimit-policy', policy ? `${String(policy)}, ${concurrencyPolicyItem(cap)}` : concurrencyPolicyItem(cap));
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
