import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { Clock } from '../../config/clock';
import { DEFAULT_CONCURRENCY_CAPS, TooManyInFlightError } from '../domain/concurrency-cap';
import { ConcurrencyStore, type InFlightSlot } from '../domain/concurrency-store';
import { BanPolicy, BURST_GRACE_MS, RateLimitDecision, RateLimitStore, WindowSpec, WindowUse } from '../domain/rate-limit-store';
import { ApiKeyBannedError, RateLimitedError, RateLimitRejection } from '../domain/rate-limit.errors';
import { refundedDecision } from '../domain/rate-limit-windows';
import { banSubjectOf, type PlanLimits, type RateLimitedCaller } from '../domain/rate-limited-caller';
import { BanLog } from './ban-log';

export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

/** How many answers a minute an account gets, 304s included, per request of its per-minute quota. */
export const ANSWERS_PER_QUOTA = 10;

/**
 * The windows of every plan for a caller's limits: the plan's minute and day,
 * which a 304 leaves alone, then `answers`, which bounds every answer other
 * than a 429 to ten times the per-minute quota. By default a request counts
 * in all three; `plan` and `answers` say how a request meets each part.
 */
export function planWindowsOf(limits: PlanLimits, plan: WindowUse = 'count', answers: WindowUse = 'count'): WindowSpec[] {
  return [
    { name: 'minute', limit: limits.perMinute, durationMs: MINUTE_MS, use: plan },
    { name: 'day', limit: limits.perDay, durationMs: DAY_MS, use: plan },
    { name: 'answers', limit: ANSWERS_PER_QUOTA * limits.perMinute, durationMs: MINUTE_MS, use: answers },
  ];
}

/** One request as the rate limits judge it. */
export interface RateLimitedRequest {
  readonly caller: RateLimitedCaller;
  /** A route's own window, judged instead of the plan's (its own `@Throttle`). */
  readonly ownWindow?: WindowSpec;
  /** The route whose rejections and ban are the key's own there (`@OwnBan()`). */
  readonly ownBanRoute?: string;
  /** A key's conditional request whose answer may be a 304, which spends no plan quota. */
  readonly mayBeNotModified?: boolean;
  /** It will be served (the access check lets it in), so it takes a place in flight. */
  readonly takesPlace?: boolean;
  /** A key came that was not looked up, its address being over its keyless limits: refused as the address, counted nowhere. */
  readonly keyNotLookedUp?: boolean;
}

/** A request's windows as it leaves them, and its refusal, if refused. */
export interface Verdict {
  readonly decision: RateLimitDecision;
  readonly refusal: RateLimitRejection | undefined;
}

/** The one decision on a request: its verdict, the place it holds in flight, and the count it owes unless answered 304. */
export interface Admission extends Verdict {
  /** The cap of places in flight that refused it, if that is what refused it. */
  readonly cap: number | undefined;
  /** Held until the answer is done; none when refused or when it takes no place. */
  readonly place: InFlightSlot | undefined;
  /** Paid when the answer is no 304: its count in the plan, which may refuse it then. */
  readonly owed: (() => Promise<Verdict>) | undefined;
}

/**
 * The rate limits of a request in one decision: its windows (minute, day and
 * answers, or a route's own) judged in one store step, counted in every one or
 * refused in none, then, for a request that will be served, one of its
 * caller's places in flight; refused for want of one, its count is taken back. On the injected clock, with the configured ban; a ban it imposes is
 * logged. `peek` answers what a request would be told, counting nothing.
 */
@Injectable()
export class RateLimiter {
  private readonly banPolicy: BanPolicy;
  private readonly caps: Readonly<Record<string, number>>;

  constructor(
    private readonly store: RateLimitStore,
    private readonly places: ConcurrencyStore,
    private readonly clock: Clock,
    private readonly bans: BanLog,
    config: AppConfig,
  ) {
    this.banPolicy = { banAfterRejections: config.banAfterRejections, banMs: config.banSeconds * 1000, burstGraceMs: BURST_GRACE_MS };
    this.caps = { ...DEFAULT_CONCURRENCY_CAPS, ...config.planConcurrency };
  }

  /** Requests the caller may have in flight at once: its plan's cap; an address has the free plan's. */
  capOf(caller: RateLimitedCaller): number {
    return (caller.plan === undefined ? undefined : this.caps[caller.plan]) ?? this.caps.free;
  }

  async admit(request: RateLimitedRequest): Promise<Admission> {
    const { caller } = request;
    if (request.keyNotLookedUp) return { ...(await this.refuseUncheckedKey(caller)), cap: undefined, place: undefined, owed: undefined };
    const banSubject = banSubjectOf(caller, request.ownBanRoute);
    const deferred = request.ownWindow === undefined && request.mayBeNotModified === true;
    // A 304 spends no plan quota, but needs room in it, and is one of the account's answers: the plan waits for an answer that is no 304.
    const windows = request.ownWindow ? [request.ownWindow] : planWindowsOf(caller.limits, deferred ? 'check' : 'count');
    const verdict = await this.judge(caller, windows, banSubject);
    const owed = deferred ? () => this.judge(caller, planWindowsOf(caller.limits, 'count', 'report'), banSubject) : undefined;
    if (verdict.refusal || !request.takesPlace) return { ...verdict, cap: undefined, place: undefined, owed: verdict.refusal ? undefined : owed };
    const cap = this.capOf(caller);
    const place = (await this.places.acquire(caller.tracker, cap)) ?? undefined;
    if (!place) {
      // Refused after all: it spends no quota, and is tallied toward no ban, as requests sent together are a burst.
      await this.store.refund(caller.tracker, windows, verdict.decision, this.clock.now());
      return { decision: refundedDecision(verdict.decision, windows), refusal: new TooManyInFlightError(cap), cap, place, owed: undefined };
    }
    return { ...verdict, cap: undefined, place, owed };
  }

  /** Counts one request in every window or, refused, in none. */
  consume(tracker: string, windows: readonly WindowSpec[], banSubject?: string): Promise<RateLimitDecision> {
    return this.store.consume(tracker, windows, this.banPolicy, this.clock.now(), banSubject);
  }

  /** What `consume` would answer now, counting nothing: for answers that spend no quota. */
  peek(tracker: string, windows: readonly WindowSpec[], banSubject?: string): Promise<RateLimitDecision> {
    return this.store.peek(tracker, windows, this.banPolicy, this.clock.now(), banSubject);
  }

  private async judge(caller: RateLimitedCaller, windows: readonly WindowSpec[], banSubject: string | undefined): Promise<Verdict> {
    const decision = await this.consume(caller.tracker, windows, banSubject);
    if (decision.banned && banSubject !== undefined && caller.key !== undefined) this.bans.note(caller, banSubject, decision);
    return { decision, refusal: decision.allowed ? undefined : rejectionOf(decision) };
  }

  /** Judged against the address's keyless limits, its refusal tallied as any, and counted in none. */
  private async refuseUncheckedKey(caller: RateLimitedCaller): Promise<Verdict> {
    const decision = await this.consume(caller.tracker, planWindowsOf(caller.limits, 'check', 'check'));
    // Should the address have room again by now, the key is still unchecked: back in a second, rather than let in as no key.
    return { decision, refusal: decision.allowed ? new RateLimitedError(1) : rejectionOf(decision) };
  }
}

/** The error a refused decision is answered with. */
function rejectionOf({ banned, retryAfterSeconds }: RateLimitDecision): RateLimitRejection {
  return banned ? new ApiKeyBannedError(retryAfterSeconds) : new RateLimitedError(retryAfterSeconds);
}
