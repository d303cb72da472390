import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiKeysService } from '../../auth/application/api-keys.service';
import type { ApiKey } from '../../auth/domain/api-key';
import type { PlanLimits } from '../../auth/domain/plan';
import { CallerResolver } from '../../auth/http/caller-resolver';
import { AppConfig } from '../../config/app-config';
import { DomainError } from '../../errors/domain-error';
import { UnroutedRequestHook } from '../../errors/unrouted-request.hook';
import { isApiRequest } from '../../http/api-route';
import { BanPolicy, RateLimitDecision, RateLimitStore, WindowName, WindowSpec } from '../domain/rate-limit-store';
import { ApiKeyBannedError, RateLimitedError } from '../domain/rate-limit.errors';
import { writeRateLimitHeaders } from '../http/rate-limit-headers';

export const RATE_LIMIT_WINDOWS = Symbol('RATE_LIMIT_WINDOWS');

/** A window's name and length, and its limit for callers without a valid key; keyed callers get their plan's. */
export interface WindowDefinition {
  readonly name: WindowName;
  readonly durationMs: number;
  readonly anonymousLimit: number;
}

const COUNTED = Symbol('animal-store.rate-limit');

type RequestWithCount = FastifyRequest & { [COUNTED]?: true };

/**
 * Counts every `/v1` request once against its caller: the API key (its plan's or
 * its own limits), or the client address with the Free plan's numbers when no
 * valid key came. Writes the headers and throws when the request is refused.
 * With a known key and counters in memory it all happens at once; a promise
 * comes back only when the key or the counters must be fetched.
 */
@Injectable()
export class RateLimiter implements UnroutedRequestHook {
  private readonly banPolicy: BanPolicy;
  private readonly anonymousWindows: readonly WindowSpec[];
  /** Window specs per plan's limits object, so that a request builds none. */
  private readonly planWindows = new WeakMap<PlanLimits, readonly WindowSpec[]>();
  now: () => number = Date.now;

  constructor(
    private readonly store: RateLimitStore,
    private readonly callers: CallerResolver,
    private readonly keys: ApiKeysService,
    private readonly config: AppConfig,
    @Inject(RATE_LIMIT_WINDOWS) private readonly windows: readonly WindowDefinition[],
  ) {
    this.banPolicy = { banAfterRejections: config.banAfterRejections, banMs: config.banSeconds * 1000 };
    this.anonymousWindows = windows.map(({ name, durationMs, anonymousLimit }) => ({ name, durationMs, limit: anonymousLimit }));
  }

  /**
   * Counts the request against its caller; refused, it throws (or rejects).
   * Only the first call counts: a guard and the error filter may both ask.
   */
  enforce(request: FastifyRequest, reply: FastifyReply): void | Promise<void> {
    const memo = request as RequestWithCount;
    if (memo[COUNTED]) return;
    memo[COUNTED] = true;
    const caller = this.callers.resolve(request);
    return caller instanceof Promise ? caller.then((key) => this.count(request, reply, key)) : this.count(request, reply, caller);
  }

  async beforeErrorReply(request: FastifyRequest, reply: FastifyReply): Promise<DomainError | undefined> {
    if (!isApiRequest(request) || (request as RequestWithCount)[COUNTED]) return undefined;
    try {
      await this.enforce(request, reply);
      return undefined;
    } catch (error) {
      if (error instanceof DomainError) return error;
      throw error;
    }
  }

  /** Counts against `key:<id>` for a valid key, `ip:<address>` otherwise: one quota per caller across every route. */
  private count(request: FastifyRequest, reply: FastifyReply, key: ApiKey | null): void | Promise<void> {
    const tracker = key ? `key:${key.id}` : `ip:${request.ip}`;
    const windows = key ? this.windowsOf(this.keys.limitsOf(key)) : this.anonymousWindows;
    const decision = this.store.consume(tracker, windows, this.banPolicy, this.now());
    return decision instanceof Promise ? decision.then((settled) => answer(reply, settled)) : answer(reply, decision);
  }

  private windowsOf(plan: PlanLimits): readonly WindowSpec[] {
    let windows = this.planWindows.get(plan);
    if (!windows) {
      windows = this.windows.map(({ name, durationMs }) => ({ name, durationMs, limit: name === 'minute' ? plan.perMinute : plan.perDay }));
      this.planWindows.set(plan, windows);
    }
    return windows;
  }
}

/** Writes the decision's headers; a refusal is thrown as the error the filter answers. */
function answer(reply: FastifyReply, decision: RateLimitDecision): void {
  writeRateLimitHeaders(reply, decision);
  if (decision.banned) throw new ApiKeyBannedError(decision.retryAfterSeconds);
  if (!decision.allowed) throw new RateLimitedError(decision.retryAfterSeconds);
}
