import type { ServerResponse } from 'node:http';
import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { InjectThrottlerOptions, InjectThrottlerStorage, ThrottlerGuard, type ThrottlerModuleOptions, type ThrottlerRequest, type ThrottlerStorage } from '@nestjs/throttler';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '../../callers/caller';
import { CallerLookup } from '../../http/caller-lookup';
import { CONDITIONAL_GET, isAnyTag } from '../../http/conditional-get';
import { RouteAccess } from '../../http/route-access';
import { OpsMetrics } from '../../ops/metrics';
import { RateLimiter, type Verdict } from '../application/rate-limiter';
import type { InFlightSlot } from '../domain/concurrency-store';
import { DeferredCharges } from './deferred-charges';
import { OWN_BAN } from './own-ban.decorator';
import { writeRateLimitHeaders } from './rate-limit-headers';
import { rateLimitedCallerOf } from './rate-limited-caller';
import { ownBucket } from './route-bucket';

/**
 * @nestjs/throttler's guard for the specification's plans, the first global
 * guard: the rate limits of a request in one decision (RateLimiter.admit),
 * its headers written once, its refusal thrown from here. It has one
 * throttler, `default`, whose limit is the caller's per-minute quota, so a
 * bare @SkipThrottle() skips it as the library means. Its `handleRequest`
 * tells the limiter the request in the limiter's terms: the caller from the
 * request's one CallerLookup; the plan's windows, or a route's own
 * `@Throttle({ default: { limit, ttl } })` window when it differs from the
 * plan's minute; a route's own ban (@OwnBan()); a key's conditional request
 * that may be a free 304 (its plan count put off for DeferredCharges to
 * settle); and whether the access check will let it in (RouteAccess), as only
 * a request that will be served takes one of its caller's places in flight,
 * given back when its answer is done. So the refusals come in the README's
 * order: the rate limits' 429, AccessGuard's 401 or 403, the cap's 429.
 * The library's own headers are off (`setHeaders: false`).
 */
@Injectable()
export class PlanThrottlerGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly limiter: RateLimiter,
    private readonly callers: CallerLookup,
    private readonly access: RouteAccess,
    private readonly deferred: DeferredCharges,
    private readonly metrics: OpsMetrics,
  ) {
    super(options, storage, reflector);
  }

  protected override async handleRequest({ context, limit, ttl, throttler }: ThrottlerRequest): Promise<boolean> {
    const http = context.switchToHttp();
    const [request, reply] = [http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>()];
    const caller = await this.callers.find(request);
    const ownLimit = ttl !== throttler.ttl || limit !== caller.limits.perMinute;
    // A request the access check refuses is no 304 and is not served: counted at once, and it takes no place.
    const letIn = this.access.admits(caller, context);
    const admission = await this.limiter.admit({
      caller: rateLimitedCallerOf(caller),
      ownWindow: ownLimit ? { name: ownBucket(ttl, context.getClass().name, context.getHandler().name), limit, durationMs: ttl } : undefined,
      ownBanRoute: this.ownBanRouteOf(context),
      mayBeNotModified: letIn && this.mayAnswerNotModified(context, request, caller),
      takesPlace: letIn,
      keyNotLookedUp: caller.kind === 'anonymous' && caller.keyNotLookedUp === true,
    });
    this.answer(reply, admission, admission.cap);
    if (admission.place) releaseWhenAnswered(reply.raw, admission.place);
    const { owed } = admission;
    if (owed) this.deferred.defer(request, async () => this.answer(reply, await owed()));
    return true;
  }

  /** Writes the verdict's headers, and throws its refusal, if any. */
  private answer(reply: FastifyReply, verdict: Verdict, cap?: number): void {
    writeRateLimitHeaders(reply, verdict, cap);
    if (!verdict.refusal) return;
    this.metrics.countRejection(verdict.refusal.code);
    throw verdict.refusal;
  }

  /** The route's name for its own ban, on an @OwnBan() route. */
  private ownBanRouteOf(context: ExecutionContext): string | undefined {
    if (this.reflector.getAllAndOverride<boolean>(OWN_BAN, [context.getHandler(), context.getClass()]) !== true) return undefined;
    return `${context.getClass().name}.${context.getHandler().name}`;
  }

  /** A key's request to a @ConditionalGet() route, with `If-None-Match` naming tags: its answer may be a free 304. */
  private mayAnswerNotModified(context: ExecutionContext, request: FastifyRequest, caller: Caller): boolean {
    const ifNoneMatch = request.headers['if-none-match'];
    if (caller.kind !== 'key' || ifNoneMatch === undefined || isAnyTag(ifNoneMatch)) return false;
    return this.reflector.getAllAndOverride<boolean>(CONDITIONAL_GET, [context.getHandler(), context.getClass()]) === true;
  }
}

/** The raw response's 'close' follows a sent answer, an error's and a cut-off connection's alike; one that came while the place was taken has passed. */
function releaseWhenAnswered(response: ServerResponse, place: InFlightSlot): void {
  if (response.closed) {
    void place.release();
    return;
  }
  response.once('close', () => void place.release());
}
