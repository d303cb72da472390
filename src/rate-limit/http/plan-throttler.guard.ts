import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  type ThrottlerModuleOptions,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import { isApiRequest } from '../../http/api-route';
import { replyOf, requestOf } from '../../http/http-context';
import { RateLimiter } from '../application/rate-limiter';

/**
 * @nestjs/throttler's guard, extended for the specification's plans. Its
 * canActivate hands each `/v1` request to the RateLimiter, where:
 * - the tracker is the caller (API key id, else client address), without the
 *   route, so a caller has one quota across the whole API;
 * - limits follow the caller's plan, resolved once per request;
 * - both windows are checked and counted in one atomic step of the
 *   RateLimitStore, because the library's per-window storage calls would count
 *   a request in the minute window that the day window then refuses;
 * - the library's own headers are off (`setHeaders: false`); the
 *   specification's are written by writeRateLimitHeaders.
 * With a known key and counters in memory the limiter answers at once, and
 * the guard hands back one promise made at start rather than a new one.
 */
const ALLOWED = Promise.resolve(true);

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

  /** Only the versioned interface is limited; health, metrics and docs are not. */
  override canActivate(context: ExecutionContext): Promise<boolean> {
    const request = requestOf(context);
    if (!isApiRequest(request)) return ALLOWED;
    try {
      const counted = this.limiter.enforce(request, replyOf(context));
      return counted instanceof Promise ? counted.then(() => true) : ALLOWED;
    } catch (refused) {
      return Promise.reject(refused);
    }
  }
}
