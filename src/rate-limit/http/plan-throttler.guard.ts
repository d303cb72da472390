import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  type ThrottlerLimitDetail,
  type ThrottlerModuleOptions,
  type ThrottlerRequest,
} from '@nestjs/throttler';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Caller, PlanLimits } from '../../callers/caller';
import { CallerLookup } from '../../http/caller-lookup';
import { CONDITIONAL_GET, isAnyTag } from '../../http/conditional-get';
import { requestState } from '../../http/request-context';
import { OpsMetrics } from '../../ops/metrics';
import { BanLog } from '../application/ban-log';
import { planWindowsOf, RateLimiter } from '../application/rate-limiter';
import type { RateLimitDecision, WindowSpec } from '../domain/rate-limit-store';
import { ApiKeyBannedError, RateLimitedError, RateLimitRejection } from '../domain/rate-limit.errors';
import { DeferredCharges } from './deferred-charges';
import { OWN_BAN } from './own-ban.decorator';
import { writeRateLimitHeaders } from './rate-limit-headers';
import { banSubjectOf, trackerOf } from './rate-limited-caller';
import { ownBucket } from './route-bucket';

/** The library's detail of a refusal, carrying the error we answer it with. */
interface PlanLimitDetail extends ThrottlerLimitDetail {
  readonly rejection: RateLimitRejection;
}

/**
 * @nestjs/throttler's guard for the specification's plans, the first global
 * guard. It has one throttler, `default`, whose limit is the caller's
 * per-minute quota, so a bare @SkipThrottle() skips it as the library means.
 * Through the library's own hooks:
 * - `getTracker`: whose quota the request counts in (trackerOf: the key's
 *   account, or the client address), from the request's one CallerLookup;
 * - `handleRequest`: judges the request in one storage step, against both
 *   windows of the caller's plan (minute and day), or, on a route whose own
 *   `@Throttle({ default: { limit, ttl } })` differs from the plan's minute,
 *   against that one window in a bucket of the route's own;
 * - `throwThrottlingException`: our domain errors, not ThrottlerException.
 * An @OwnBan() route judges the key's rejections and ban on that route apart.
 * A key the caller lookup did not look up, its address being over its keyless
 * limits (KeyLookupGate), is refused as the address, counted nowhere.
 * Every request counts in the plan's windows (minute, day) and in the
 * account's `answers`, ten times its minute. A key's request to a
 * @ConditionalGet() route with `If-None-Match` may be answered 304, which
 * spends no plan quota: it counts in `answers` at once and is refused while
 * the plan has no room, and its count in the plan is put off until the route
 * tells how it answered (DeferredCharges pays it, through the same consume,
 * unless the answer is a 304). Every other request is counted at once.
 * The library's own headers are off (`setHeaders: false`); the
 * specification's are written by writeRateLimitHeaders.
 */
@Injectable()
export class PlanThrottlerGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() private readonly limiter: RateLimiter,
    reflector: Reflector,
    private readonly callers: CallerLookup,
    private readonly deferred: DeferredCharges,
    private readonly metrics: OpsMetrics,
    private readonly bans: BanLog,
  ) {
    super(options, limiter, reflector);
  }

  protected override async getTracker(request: Record<string, any>): Promise<string> {
    return trackerOf(await this.callers.find(request as FastifyRequest));
  }

  protected override async handleRequest({ context, limit, ttl, throttler, getTracker }: ThrottlerRequest): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const caller = await this.callers.find(request);
    const tracker = await getTracker(request, context);
    const banSubject = banSubjectOf(caller, this.ownBanRouteOf(context));
    requestState(request).rateLimitedAs = { tracker };
    if (caller.kind === 'anonymous' && caller.keyNotLookedUp) {
      await this.refuseUncheckedKey(context, tracker, caller.limits);
      return false;
    }
    if (ttl !== throttler.ttl || limit !== caller.limits.perMinute) {
      await this.charge(context, tracker, [{ name: ownBucket(ttl, context.getClass().name, context.getHandler().name), limit, durationMs: ttl }], banSubject);
      return true;
    }
    if (!this.mayAnswerNotModified(context, request, caller)) {
      await this.charge(context, tracker, planWindowsOf(caller.limits), banSubject);
      return true;
    }
    // A 304 spends no plan quota, but needs room in it, and is one of the account's answers: the plan waits for an answer that is no 304.
    await this.charge(context, tracker, planWindowsOf(caller.limits, 'check', 'count'), banSubject);
    this.deferred.defer(request, () => this.charge(context, tracker, planWindowsOf(caller.limits, 'count', 'report'), banSubject));
    return true;
  }

  /** The one counting path: counts the request in every window, or refuses it in none. */
  private async charge(context: ExecutionContext, tracker: string, windows: readonly WindowSpec[], banSubject: string | undefined): Promise<void> {
    const decision = await this.limiter.consume(tracker, windows, banSubject);
    writeRateLimitHeaders(context.switchToHttp().getResponse<FastifyReply>(), decision);
    const caller = requestState(context.switchToHttp().getRequest<FastifyRequest>()).caller;
    if (decision.banned && banSubject && caller?.kind === 'key') this.bans.note(caller, banSubject, decision);
    if (!decision.allowed) await this.throwThrottlingException(context, refusalDetail(tracker, windows, decision));
  }

  /**
   * A key not looked up because its address was over its keyless limits:
   * judged against them (its refusal tallied as any) and counted in none.
   */
  private async refuseUncheckedKey(context: ExecutionContext, tracker: string, limits: PlanLimits): Promise<void> {
    const windows = planWindowsOf(limits, 'check', 'check');
    const decision = await this.limiter.consume(tracker, windows);
    // Should the address have room again by now, the key is still unchecked: back in a second, rather than let in as no key.
    const refusal = decision.allowed ? { ...decision, allowed: false, retryAfterSeconds: 1 } : decision;
    writeRateLimitHeaders(context.switchToHttp().getResponse<FastifyReply>(), refusal);
    await this.throwThrottlingException(context, refusalDetail(tracker, windows, refusal));
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

  protected override async throwThrottlingException(_context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    const { rejection } = detail as PlanLimitDetail;
    this.metrics.countRejection(rejection.code);
    throw rejection;
  }
}

/** A refusal in the library's terms; the binding window is the one the client sees in the headers. */
function refusalDetail(tracker: string, windows: readonly WindowSpec[], decision: RateLimitDecision): PlanLimitDetail {
  const { binding, retryAfterSeconds } = decision;
  return {
    tracker,
    key: binding.name,
    limit: binding.limit,
    ttl: windows.find((window) => window.name === binding.name)?.durationMs ?? 0,
    totalHits: binding.limit - binding.remaining + 1,
    timeToExpire: retryAfterSeconds,
    isBlocked: true,
    timeToBlockExpire: retryAfterSeconds,
    rejection: rejectionOf(decision),
  };
}

/** The error a refused decision is answered with. */
export function rejectionOf({ banned, retryAfterSeconds }: RateLimitDecision): RateLimitRejection {
  return banned ? new ApiKeyBannedError(retryAfterSeconds) : new RateLimitedError(retryAfterSeconds);
}
