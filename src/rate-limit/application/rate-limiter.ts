import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiKeysService } from '../../auth/application/api-keys.service';
import type { PlanLimits } from '../../auth/domain/plan';
import { CallerResolver } from '../../auth/http/caller-resolver';
import { AppConfig } from '../../config/app-config';
import { DomainError } from '../../errors/domain-error';
import { UnroutedRequestHook } from '../../errors/unrouted-request.hook';
import { isApiRequest } from '../../http/api-route';
import { BanPolicy, RateLimitStore, WindowName, WindowSpec } from '../domain/rate-limit-store';
import { ApiKeyBannedError, RateLimitedError } from '../domain/rate-limit.errors';
import { writeRateLimitHeaders } from '../http/rate-limit-headers';

export const RATE_LIMIT_WINDOWS = Symbol('RATE_LIMIT_WINDOWS');

/** A window's name and length, and its limit for callers without a valid key; keyed callers get their plan's. */
export interface WindowDefinition {
  readonly name: WindowName;
  readonly durationMs: number;
  readonly anonymousLimit: number;
}

const ENFORCED = Symbol('animal-store.rate-limit');

type RequestWithEnforcement = FastifyRequest & { [ENFORCED]?: Promise<void> };

/**
 * Counts every `/v1` request once against its caller: the API key (its plan's or
 * its own limits), or the client address with the Free plan's numbers when no
 * valid key came. Writes the headers and throws when the request is refused.
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

  /** Idempotent per request: a guard and the error filter may both ask. */
  enforce(request: FastifyRequest, reply: FastifyReply, tracker?: string): Promise<void> {
    const memo = request as RequestWithEnforcement;
    memo[ENFORCED] ??= this.consume(request, reply, tracker);
    return memo[ENFORCED];
  }

  async beforeErrorReply(request: FastifyRequest, reply: FastifyReply): Promise<DomainError | undefined> {
    if (!isApiRequest(request) || (request as RequestWithEnforcement)[ENFORCED]) return undefined;
    try {
      await this.enforce(request, reply);
      return undefined;
    } catch (error) {
      if (error instanceof DomainError) return error;
      throw error;
    }
  }

  /** `key:<id>` for a valid key, `ip:<address>` otherwise: one quota per caller across every route. */
  async trackerOf(request: FastifyRequest): Promise<string> {
    const key = await this.callers.resolve(request);
    return key ? `key:${key.id}` : `ip:${request.ip}`;
  }

  private async consume(request: FastifyRequest, reply: FastifyReply, tracker?: string): Promise<void> {
    const key = await this.callers.resolve(request);
    const windows = key ? this.windowsOf(this.keys.limitsOf(key)) : this.anonymousWindows;
    const decision = await this.store.consume(tracker ?? (await this.trackerOf(request)), windows, this.banPolicy, this.now());
    writeRateLimitHeaders(reply, decision);
    if (decision.banned) throw new ApiKeyBannedError(decision.retryAfterSeconds);
    if (!decision.allowed) throw new RateLimitedError(decision.retryAfterSeconds);
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
