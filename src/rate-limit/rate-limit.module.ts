import { Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { ThrottlerModule, type ThrottlerModuleOptions } from '@nestjs/throttler';
import { AuthModule } from '../auth/auth.module';
import { CallerLookup } from '../auth/application/caller-lookup';
import { AppConfig } from '../config/app-config';
import { READINESS_CHECKS, ReadinessCheck } from '../ops/readiness';
import { PLAN_WINDOWS, RateLimiter } from './application/rate-limiter';
import { RateLimitStore } from './domain/rate-limit-store';
import { PlanThrottlerGuard } from './http/plan-throttler.guard';
import { PlanThrottlerStorage } from './http/plan-throttler.storage';
import { limitsOf } from './http/rate-limited-caller';
import { ClosableRateLimitStore, createRateLimitStore } from './infrastructure/create-rate-limit-store';
import { RedisRateLimitStore } from './infrastructure/redis-rate-limit.store';

/** The counters (memory or Redis), the limiter that judges against them, and the throttler's storage over it. */
@Module({
  providers: [
    {
      provide: RateLimitStore,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => createRateLimitStore(config, new Logger('RateLimit')),
    },
    {
      // With REDIS_URL or REDIS_CLUSTER_NODES, /readyz reports Redis: without it, limits are no longer shared.
      provide: READINESS_CHECKS,
      inject: [RateLimitStore, AppConfig],
      useFactory: (store: RateLimitStore, config: AppConfig): ReadinessCheck[] =>
        store instanceof RedisRateLimitStore ? [{ name: config.redisClusterNodes ? 'redis-cluster' : 'redis', check: () => store.ping() }] : [],
    },
    RateLimiter,
    PlanThrottlerStorage,
  ],
  exports: [RateLimiter, PlanThrottlerStorage],
})
class RateLimitCountersModule implements OnApplicationShutdown {
  constructor(@Inject(RateLimitStore) private readonly store: ClosableRateLimitStore) {}

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}

/**
 * Plan-aware rate limits on @nestjs/throttler: two named throttlers whose
 * limit is the caller's plan's (the Free plan's without a valid key), our
 * storage, and PlanThrottlerGuard, which AppModule registers as the first
 * global guard. Requests no guard sees are counted by
 * registerUnguardedRequestLimits (see configureApp).
 */
@Module({
  imports: [
    AuthModule,
    RateLimitCountersModule,
    ThrottlerModule.forRootAsync({
      imports: [AuthModule, RateLimitCountersModule],
      inject: [CallerLookup, PlanThrottlerStorage],
      useFactory: (callers: CallerLookup, storage: PlanThrottlerStorage): ThrottlerModuleOptions => ({
        throttlers: PLAN_WINDOWS.map(({ name, durationMs, limitOf }) => ({
          name,
          ttl: durationMs,
          limit: async (context) => limitOf(await limitsOf(context.switchToHttp().getRequest(), callers)),
        })),
        storage,
        setHeaders: false,
      }),
    }),
  ],
  providers: [PlanThrottlerGuard],
  exports: [PlanThrottlerGuard],
})
export class RateLimitModule {}
