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
import { PlanThrottlerGuard } from './http/plan-throttler.guard';
import { RateLimitController } from './http/rate-limit.controller';
import { UnmatchedRouteCharges } from './http/unmatched-route-charges';
import { ClosableRateLimitStore, createRateLimitStore, isSharedStore } from './infrastructure/create-rate-limit-store';
import { Clock } from '../config/clock';
import { ConcurrencyLimiter } from './application/concurrency-limiter';
import { ConcurrencyStore } from './domain/concurrency-store';
import { ConcurrencyCapGuard } from './http/concurrency-cap.guard';
import { KeyLookupGate } from '../http/key-lookup-gate';
import { AddressKeyLookupGate } from './http/address-key-lookup-gate';
import { createConcurrencyStore } from './infrastructure/create-concurrency-store';

/** What `/readyz` checks of the rate limits: Redis, when the counters are there. */
export const RATE_LIMIT_READINESS = Symbol('RATE_LIMIT_READINESS');

/** The counters (memory or Redis) and the limiter that judges against them, which is the throttler's storage. */
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
    RateLimiter,
    // The concurrency cap's places live beside the counters, on their Redis connection when they are shared.
    { provide: ConcurrencyStore, inject: [RateLimitStore, Clock, AppConfig], useFactory: createConcurrencyStore },
    ConcurrencyLimiter,
  ],
  exports: [RateLimiter, ConcurrencyLimiter, RATE_LIMIT_READINESS],
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
 * the anonymous limits), and our limiter as the storage, which judges the
 * plan's day in the same step; PlanThrottlerGuard, which AppModule registers
 * as a global guard; the counts it puts off for a possible 304, which
 * @ConditionalGet() routes settle (ConditionalAnswers, hence global); and
 * `GET /v1/rate_limit`, the caller's quota.
 */
@Global()
@Module({
  imports: [
    RateLimitCountersModule,
    ThrottlerModule.forRootAsync({
      imports: [RateLimitCountersModule],
      inject: [RateLimiter, CallerLookup],
      useFactory: (limiter: RateLimiter, callers: CallerLookup): ThrottlerModuleOptions => ({
        throttlers: [
          {
            name: 'default',
            ttl: MINUTE_MS,
            limit: async (context) => (await callers.find(context.switchToHttp().getRequest<FastifyRequest>())).limits.perMinute,
          },
        ],
        storage: limiter,
        setHeaders: false,
      }),
    }),
  ],
  controllers: [RateLimitController],
  providers: [
    PlanThrottlerGuard,
    BanLog,
    UnmatchedRouteCharges,
    DeferredCharges,
    { provide: ConditionalAnswers, useExisting: DeferredCharges },
    // The concurrency cap, which AppModule registers as the last global guard.
    ConcurrencyCapGuard,
    // Asked by the caller lookup (auth) before it looks up a key this instance has not verified lately.
    { provide: KeyLookupGate, useClass: AddressKeyLookupGate },
  ],
  exports: [PlanThrottlerGuard, ConditionalAnswers, ConcurrencyCapGuard, KeyLookupGate, RateLimitCountersModule],
})
export class RateLimitModule {}
