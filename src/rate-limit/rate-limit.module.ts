import { Global, Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { ThrottlerModule, type ThrottlerModuleOptions } from '@nestjs/throttler';
import type { FastifyRequest } from 'fastify';
import { AppConfig } from '../config/app-config';
import { CallerLookup } from '../http/caller-lookup';
import { ConditionalAnswers } from '../http/conditional-answers';
import { OpsMetrics } from '../ops/metrics';
import { ReadinessCheck } from '../ops/readiness';
import { BanLog } from './application/ban-log';
import { MINUTE_MS, RateLimiter } from './application/rate-limiter';
import { RateLimitStore } from './domain/rate-limit-store';
import { DeferredCharges } from './http/deferred-charges';
import { LimiterThrottlerStorage } from './http/limiter-throttler-storage';
import { PlanThrottlerGuard } from './http/plan-throttler.guard';
import { RateLimitController } from './http/rate-limit.controller';
import { UnmatchedRouteCharges } from './http/unmatched-route-charges';
import { ClosableRateLimitStore, createRateLimitStore, isSharedStore } from './infrastructure/create-rate-limit-store';
import { Clock } from '../config/clock';
import { ConcurrencyStore } from './domain/concurrency-store';
import { KeyLookupGate } from '../http/key-lookup-gate';
import { AddressKeyLookupGate } from './http/address-key-lookup-gate';
import { createConcurrencyStore } from './infrastructure/create-concurrency-store';

/** What `/readyz` checks of the rate limits: Redis, when the counters are there. */
export const RATE_LIMIT_READINESS = Symbol('RATE_LIMIT_READINESS');

/** The counters and places in flight (memory or Redis), the limiter that judges against them, and the throttler's storage on it. */
@Module({
  providers: [
    {
      provide: RateLimitStore,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => createRateLimitStore(config, new Logger('RateLimit')),
    },
    {
      // With REDIS_URL or REDIS_CLUSTER_NODES, /readyz reports Redis: without it, limits are no longer shared.
      provide: RATE_LIMIT_READINESS,
      inject: [RateLimitStore, AppConfig],
      useFactory: (store: ClosableRateLimitStore, config: AppConfig): ReadinessCheck[] =>
        isSharedStore(store) ? [{ name: config.redisClusterNodes ? 'redis-cluster' : 'redis', check: () => store.ping() }] : [],
    },
    // The concurrency cap's places live beside the counters, on their Redis connection when they are shared.
    { provide: ConcurrencyStore, inject: [RateLimitStore, Clock, AppConfig], useFactory: createConcurrencyStore },
    BanLog,
    RateLimiter,
    LimiterThrottlerStorage,
  ],
  exports: [RateLimiter, LimiterThrottlerStorage, RATE_LIMIT_READINESS],
})
class RateLimitCountersModule implements OnApplicationShutdown {
  constructor(@Inject(RateLimitStore) private readonly store: ClosableRateLimitStore, metrics: OpsMetrics) {
    metrics.markRateLimitStoreShared(isSharedStore(store));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}

/**
 * Plan-aware rate limits on @nestjs/throttler: one throttler, `default`, a
 * minute long, whose limit is the caller's per-minute quota (its plan's, or
 * the anonymous limits), and our counters as its storage; PlanThrottlerGuard,
 * which AppModule registers as the first global guard and which takes each
 * request's one rate-limit decision (windows and places in flight); the counts it puts off for a possible 304, which
 * @ConditionalGet() routes settle (ConditionalAnswers, hence global); and
 * `GET /v1/rate_limit`, the caller's quota.
 */
@Global()
@Module({
  imports: [
    RateLimitCountersModule,
    ThrottlerModule.forRootAsync({
      imports: [RateLimitCountersModule],
      inject: [LimiterThrottlerStorage, CallerLookup],
      useFactory: (storage: LimiterThrottlerStorage, callers: CallerLookup): ThrottlerModuleOptions => ({
        throttlers: [
          {
            name: 'default',
            ttl: MINUTE_MS,
            limit: async (context) => (await callers.find(context.switchToHttp().getRequest<FastifyRequest>())).limits.perMinute,
          },
        ],
        storage,
        setHeaders: false,
      }),
    }),
  ],
  controllers: [RateLimitController],
  providers: [
    PlanThrottlerGuard,
    UnmatchedRouteCharges,
    DeferredCharges,
    { provide: ConditionalAnswers, useExisting: DeferredCharges },
    // Asked by the caller lookup (auth) before it looks up a key this instance has not verified lately.
    { provide: KeyLookupGate, useClass: AddressKeyLookupGate },
  ],
  exports: [PlanThrottlerGuard, ConditionalAnswers, KeyLookupGate, RateLimitCountersModule],
})
export class RateLimitModule {}
