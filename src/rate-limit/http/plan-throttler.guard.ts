import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  type ThrottlerModuleOptions,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isApiRequest } from '../../http/api-route';
import { RateLimiter } from '../application/rate-limiter';

/**
 * @nestjs/throttler's guard, extended for the specification's plans:
 * - the tracker is the caller (API key id, else client address) and the key
 *   leaves the route out, so a caller has one quota across the whole API;
 * - limits follow the caller's plan, resolved once per request;
 * - both windows are checked and counted in one atomic step of the
 *   RateLimitStore, because the library's per-window storage calls would count
 *   a request in the minute window that the day window then refuses;
 * - the library's own headers are off (`setHeaders: false`); the
 *   specification's are written by writeRateLimitHeaders.
 */
@Injectable()
export class PlanThrottlerGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly limiter: RateLimiter,
  ) {
    super(options, storage, reflector);
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    if (await this.shouldSkip(context)) return true;
    const { req, res } = this.getRequestResponse(context) as { req: FastifyRequest; res: FastifyReply };
    const tracker = await this.getTracker(req);
    await this.limiter.enforce(req, res, this.generateKey(context, tracker, 'all'));
    return true;
  }

  /** Only the versioned interface is limited; health, metrics and docs are not. */
  protected override async shouldSkip(context: ExecutionContext): Promise<boolean> {
    return !isApiRequest(context.switchToHttp().getRequest<FastifyRequest>());
  }

  protected override getTracker(req: Record<string, any>): Promise<string> {
    return this.limiter.trackerOf(req as FastifyRequest);
  }

  /** The caller alone, without the route or the window name: one quota for the whole API. */
  protected override generateKey(_context: ExecutionContext, tracker: string, _window: string): string {
    return tracker;
  }
}
