import { Global, Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { getOptionsToken, ThrottlerModule, type ThrottlerModuleOptions, type ThrottlerOptions } from '@nestjs/throttler';
import { AuthModule } from '../auth/auth.module';
import { AppConfig } from '../config/app-config';
import { UNROUTED_REQUEST_HOOK } from '../errors/unrouted-request.hook';
import { READINESS_CHECKS, ReadinessCheck } from '../ops/readiness';
import { RATE_LIMIT_WINDOWS, RateLimiter, WindowDefinition } from './application/rate-limiter';
import { RateLimitStore } from './domain/rate-limit-store';
import { ClosableRateLimitStore, createRateLimitStore } from './infrastructure/create-rate-limit-store';
import { RedisRateLimitStore } from './infrastructure/redis-rate-limit.store';
import { PlanThrottlerGuard } from './http/plan-throttler.guard';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/**
 * Plan-aware rate limits. The throttler options name the two windows; their
 * `limit` is what a caller without a valid key gets (the Free plan's numbers),
 * keyed callers get their plan's. Global so that the error filter can reach
 * the hook for requests that never get to a guard.
 */
@Global()
@Module({
  imports: [
    AuthModule,
    ThrottlerModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig): ThrottlerModuleOptions => ({
        throttlers: [
          { name: 'minute', ttl: MINUTE_MS, limit: config.rateLimitPlans.free.perMinute },
          { name: 'day', ttl: DAY_MS, limit: config.rateLimitPlans.free.perDay },
        ],
        setHeaders: false,
      }),
    }),
  ],
  providers: [
    {
      provide: RATE_LIMIT_WINDOWS,
      inject: [getOptionsToken()],
      useFactory: (options: ThrottlerModuleOptions): WindowDefinition[] =>
        (options as { throttlers: ThrottlerOptions[] }).throttlers.map((throttler) => ({
          name: throttler.name as WindowDefinition['name'],
          durationMs: throttler.ttl as number,
          anonymousLimit: throttler.limit as number,
        })),
    },
    {
      provide: RateLimitStore,
      inject: [AppConfig],
      useFactory: (config: AppConfig) =>
        createRateLimitStore(config.redisUrl, new Logger('RateLimit'), config.redisKeyPrefix),
    },
    {
      // With REDIS_URL, /readyz reports Redis: without it, limits are no longer shared.
      provide: READINESS_CHECKS,
      inject: [RateLimitStore],
      useFactory: (store: RateLimitStore): ReadinessCheck[] =>
        store instanceof RedisRateLimitStore ? [{ name: 'redis', check: () => store.ping() }] : [],
    },
    RateLimiter,
    PlanThrottlerGuard,
    { provide: UNROUTED_REQUEST_HOOK, useExisting: RateLimiter },
  ],
  exports: [PlanThrottlerGuard, RateLimitStore, UNROUTED_REQUEST_HOOK],
})
export class RateLimitModule implements OnApplicationShutdown {
  constructor(@Inject(RateLimitStore) private readonly store: ClosableRateLimitStore) {}

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}
