import { ExecutionContext, Injectable } from '@nestjs/common';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  type ThrottlerLimitDetail,
  type ThrottlerModuleOptions,
  type ThrottlerRequest,
} from '@nestjs/throttler';
// The metadata keys of @Throttle() and @SkipThrottle(), which the package does not re-export from its index.
import { THROTTLER_LIMIT, THROTTLER_SKIP } from '@nestjs/throttler/dist/throttler.constants';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CONDITIONAL_GET } from '../../http/conditional-get';
import type { Caller } from '../../http/caller';
import { callerOf } from '../../http/request-context';
import { RouteAccess } from '../../http/route-access';
import { RouteReflector } from '../../http/route-reflector';
import { OpsMetrics } from '../../ops/metrics';
import { RateLimiter } from '../application/rate-limiter';
import type { RateLimitDecision, WindowSpec } from '../domain/rate-limit-store';
import { ApiKeyBannedError, RateLimitedError, RateLimitRejection } from '../domain/rate-limit.errors';
import { DeferredCharges } from './deferred-charges';
import { writeRateLimitHeaders } from './rate-limit-headers';
import { banSubjectOf, trackerOf } from './rate-limited-caller';
import { OWN_BAN } from './own-ban.decorator';
import { routeBucket } from './route-bucket';

/** A bare @SkipThrottle()'s metadata key: the library files it under its `default` throttler, and ours are named. */
const SKIP_EVERY_WINDOW = `${THROTTLER_SKIP}default`;

declare module 'fastify' {
  interface FastifyRequest {
    /** The windows the library resolved for the request, between handleRequest and canActivate; declared by RateLimitModule. */
    rateLimitWindows: WindowSpec[] | null;
  }
}

/** The library's detail of a refusal, carrying the error we answer it with. */
interface PlanLimitDetail extends ThrottlerLimitDetail {
  readonly rejection: RateLimitRejection;
}

/**
 * @nestjs/throttler's guard for the specification's plans, the second global
 * guard: it counts every request against the caller the authentication
 * guard found (trackerOf: the key's account, or the client address; the ban
 * is the key's own). Through the library's own hooks:
 * - `shouldSkip`: a bare @SkipThrottle() skips every window (the library reads
 *   it as the `default` throttler's, and ours are named);
 * - `generateKey`: the window's bucket in the caller's record, without the
 *   route, so a caller has one quota across the API; a route with its own
 *   @Throttle for a window gets its own bucket for that window;
 * - `handleRequest`: notes each window the library resolved for the route
 *   (plan limits, @Throttle), which `canActivate` then judges in one storage step;
 * - `throwThrottlingException`: our domain errors, not ThrottlerException.
 * An @OwnBan() route judges the key's rejections and ban on that route apart.
 * A @ConditionalGet() route asked with `If-None-Match` may be answered 304,
 * which spends no quota: when the route lets the caller in, such a request is
 * only peeked at (refused only when banned) and its count is put off until
 * the route tells how it answered (DeferredCharges pays it, through the same
 * consume, unless the answer is a 304). A request the route will turn away
 * is counted at once: no guard's refusal is a 304.
 * The library's own headers are off (`setHeaders: false`); the
 * specification's are written by writeRateLimitHeaders.
 */
@Injectable()
export class PlanThrottlerGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() private readonly limiter: RateLimiter,
    // The library reads six metadata keys per window on every request: RouteReflector walks the metadata once per route.
    reflector: RouteReflector,
    private readonly access: RouteAccess,
    private readonly deferred: DeferredCharges,
    private readonly metrics: OpsMetrics,
  ) {
    super(options, limiter, reflector);
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const windows: WindowSpec[] = [];
    request.rateLimitWindows = windows;
    // The library resolves every window before we judge any: judged one at a time, a request
    // could count in the minute window that the day window then refuses.
    await super.canActivate(context);
    if (windows.length === 0) return true;
    const caller = callerOf(request);
    const [tracker, banSubject] = [trackerOf(caller), banSubjectOf(caller, this.ownBanRouteOf(context))];
    const charge = () => this.charge(context, tracker, windows, banSubject);
    if (!this.mayAnswerNotModified(context, request, caller)) {
      await charge();
      return true;
    }
    // A 304 costs nothing, so this request is only judged for a ban now; counting waits for an answer that is no 304.
    const decision = await this.limiter.peek(tracker, windows, banSubject);
    writeRateLimitHeaders(http.getResponse<FastifyReply>(), decision, decision.banned);
    if (decision.banned) await this.throwThrottlingException(context, refusalDetail(tracker, windows, decision));
    this.deferred.defer(request, charge);
    return true;
  }

  /** The one counting path: counts the request in every window, or refuses it in none. */
  private async charge(context: ExecutionContext, tracker: string, windows: readonly WindowSpec[], banSubject: string | undefined): Promise<void> {
    const decision = await this.limiter.consume(tracker, windows, banSubject);
    writeRateLimitHeaders(context.switchToHttp().getResponse<FastifyReply>(), decision);
    if (!decision.allowed) await this.throwThrottlingException(context, refusalDetail(tracker, windows, decision));
  }

  /** The route's name for its own ban, on an @OwnBan() route. */
  private ownBanRouteOf(context: ExecutionContext): string | undefined {
    if (this.reflector.getAllAndOverride<boolean>(OWN_BAN, [context.getHandler(), context.getClass()]) !== true) return undefined;
    return `${context.getClass().name}.${context.getHandler().name}`;
  }

  /** A @ConditionalGet() route asked with `If-None-Match` by a caller it lets in: its answer may be a 304. */
  private mayAnswerNotModified(context: ExecutionContext, request: FastifyRequest, caller: Caller): boolean {
    if (request.headers['if-none-match'] === undefined) return false;
    if (this.reflector.getAllAndOverride<boolean>(CONDITIONAL_GET, [context.getHandler(), context.getClass()]) !== true) return false;
    return this.access.refusalOf(caller, context) === undefined;
  }

  protected override async shouldSkip(context: ExecutionContext): Promise<boolean> {
    return this.reflector.getAllAndOverride<boolean>(SKIP_EVERY_WINDOW, [context.getHandler(), context.getClass()]) === true;
  }

  protected override generateKey(context: ExecutionContext, _tracker: string, name: string): string {
    const ownLimit = this.reflector.getAllAndOverride<unknown>(THROTTLER_LIMIT + name, [context.getHandler(), context.getClass()]);
    return ownLimit === undefined ? name : routeBucket(name, context.getClass().name, context.getHandler().name);
  }

  protected override async handleRequest({ context, limit, ttl, throttler }: ThrottlerRequest): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    request.rateLimitWindows?.push({ name: this.generateKey(context, '', throttler.name as string), limit, durationMs: ttl });
    return true;
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
    rejection: decision.banned ? new ApiKeyBannedError(retryAfterSeconds) : new RateLimitedError(retryAfterSeconds),
  };
}
