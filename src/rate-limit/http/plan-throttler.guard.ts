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
// The metadata keys of @Throttle() and @SkipThrottle(), which the package does not re-export from its index.
import { THROTTLER_LIMIT, THROTTLER_SKIP } from '@nestjs/throttler/dist/throttler.constants';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CallerLookup } from '../../auth/application/caller-lookup';
import { RateLimitNote, requestContext } from '../../http/request-context';
import type { RateLimitDecision } from '../domain/rate-limit-store';
import { ApiKeyBannedError, RateLimitedError } from '../domain/rate-limit.errors';
import { PlanThrottlerStorage } from './plan-throttler.storage';
import { writeRateLimitHeaders } from './rate-limit-headers';
import { routeBucket } from './route-bucket';
import { banSubjectOf, trackerOf } from './rate-limited-caller';

/** The library's detail of a refusal, saying which of our two refusals it is. */
interface PlanLimitDetail extends ThrottlerLimitDetail {
  readonly banned: boolean;
}

/**
 * @nestjs/throttler's guard for the specification's plans, through the
 * library's own hooks:
 * - `shouldSkip`: a bare @SkipThrottle() skips every window (the library reads
 *   it as the `default` throttler's, and ours are named);
 * - `getTracker`: the caller, `account:<id>` for a valid key (whose own
 *   `key:<id>` bears the ban), else `ip:<address>`;
 * - `generateKey`: the window's bucket in the caller's record, without the
 *   route, so a caller has one quota across the API; a route with its own
 *   @Throttle for a window gets its own bucket for that window;
 * - `handleRequest`: notes each window the library resolved for the route
 *   (plan limits, @Throttle, @SkipThrottle), which `canActivate` then judges
 *   in one storage step;
 * - `throwThrottlingException`: our domain errors, not ThrottlerException.
 * The library's own headers are off (`setHeaders: false`); the
 * specification's are written by writeRateLimitHeaders.
 */
@Injectable()
export class PlanThrottlerGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() private readonly plans: PlanThrottlerStorage,
    reflector: Reflector,
    private readonly callers: CallerLookup,
  ) {
    super(options, plans, reflector);
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const note: RateLimitNote = { windows: [] };
    requestContext(http.getRequest<FastifyRequest>()).rateLimit = note;
    // The library resolves every window before we judge any: judged one at a time, a request
    // could count in the minute window that the day window then refuses.
    await super.canActivate(context);
    if (note.tracker === undefined || note.windows.length === 0) return true;
    note.banSubject = await banSubjectOf(http.getRequest<FastifyRequest>(), this.callers);
    const decision = await this.plans.consume(note.tracker, note.windows, note.banSubject);
    writeRateLimitHeaders(http.getResponse<FastifyReply>(), decision);
    if (!decision.allowed) await this.throwThrottlingException(context, refusalDetail(note, decision));
    return true;
  }

  protected override async shouldSkip(context: ExecutionContext): Promise<boolean> {
    return this.reflector.getAllAndOverride<boolean>(`${THROTTLER_SKIP}default`, [context.getHandler(), context.getClass()]) === true;
  }

  protected override getTracker(request: Record<string, unknown>): Promise<string> {
    return trackerOf(request as unknown as FastifyRequest, this.callers);
  }

  protected override generateKey(context: ExecutionContext, _tracker: string, name: string): string {
    const ownLimit = this.reflector.getAllAndOverride<unknown>(THROTTLER_LIMIT + name, [context.getHandler(), context.getClass()]);
    return ownLimit === undefined ? name : routeBucket(name, context.getClass().name, context.getHandler().name);
  }

  protected override async handleRequest({ context, limit, ttl, throttler, getTracker, generateKey }: ThrottlerRequest): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const note = requestContext(request).rateLimit as RateLimitNote;
    note.tracker ??= await getTracker(request, context);
    note.windows.push({ name: generateKey(context, note.tracker, throttler.name as string), limit, durationMs: ttl });
    return true;
  }

  protected override async throwThrottlingException(_context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    const { banned, timeToBlockExpire } = detail as PlanLimitDetail;
    throw banned ? new ApiKeyBannedError(timeToBlockExpire) : new RateLimitedError(timeToBlockExpire);
  }
}

/** A refusal in the library's terms; the binding window is the one the client sees in the headers. */
function refusalDetail(note: RateLimitNote, decision: RateLimitDecision): PlanLimitDetail {
  const { binding, retryAfterSeconds } = decision;
  return {
    tracker: note.tracker as string,
    key: binding.name,
    limit: binding.limit,
    ttl: note.windows.find((window) => window.name === binding.name)?.durationMs ?? 0,
    totalHits: binding.limit - binding.remaining + 1,
    timeToExpire: retryAfterSeconds,
    isBlocked: true,
    timeToBlockExpire: retryAfterSeconds,
    banned: decision.banned,
  };
}
