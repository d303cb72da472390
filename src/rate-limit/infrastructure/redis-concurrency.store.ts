import { randomUUID } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import type { Clock } from '../../config/clock';
import { ConcurrencyStore, type InFlightSlot } from '../domain/concurrency-store';
import { MemoryConcurrencyStore } from './memory-concurrency.store';
import { ACQUIRE_SCRIPT, RENEW_SCRIPT } from './redis-concurrency.script';
import { redisKey } from './redis-rate-limit.store';

/** The counters' connection and its state (RedisRateLimitStore), which the places share. */
export interface CountersConnection {
  readonly connection: Redis | Cluster;
  /** True while the counters answer from memory: the places are then taken in memory too. */
  readonly degraded: boolean;
}

type ConcurrencyRedis = (Redis | Cluster) & {
  acquireConcurrencySlot(key: string, nowMs: number, cap: number, token: string, leaseMs: number): Promise<number>;
  renewConcurrencySlots(key: string, nowMs: number, leaseMs: number, ...tokens: string[]): Promise<unknown>;
};

export interface RedisConcurrencyStoreOptions {
  readonly keyPrefix: string;
  readonly clock: Clock;
  /** How long a place outlives its holder's last renewal: how soon an instance that died gives its places back. */
  readonly leaseMs?: number;
}

export const DEFAULT_CONCURRENCY_LEASE_MS = 5_000;

/** A place is renewed this many times per lease, so a renewal may be late or lost a few times before the place lapses. */
const RENEWALS_PER_LEASE = 5;

/** The caller's set of places: the tag of its counters' hash, so one caller's keys share a cluster slot. */
export function concurrencyRedisKey(prefix: string, tracker: string): string {
  return `${redisKey(prefix, tracker)}:in-flight`;
}

/**
 * Places shared by every instance through the Redis the counters use: one Lua
 * call takes a place atomically, a plain ZREM gives it back. Each place is a
 * lease that this instance renews, in one call per caller, while its request
 * runs; the places of an instance that dies lapse within `leaseMs`.
 *
 * Fail-open as the counters are (docs/adr/0003): while the connection is not
 * usable, or a call fails, the place is taken in this instance's memory, so
 * each instance caps alone. A place taken in Redis whose answer was lost (a
 * timeout) is never renewed and lapses by itself.
 */
export class RedisConcurrencyStore extends ConcurrencyStore {
  private readonly redis: ConcurrencyRedis;
  private readonly fallback = new MemoryConcurrencyStore();
  private readonly keyPrefix: string;
  private readonly clock: Clock;
  private readonly leaseMs: number;
  /** The tokens this instance holds, by set. */
  private readonly held = new Map<string, Set<string>>();
  private readonly tokenPrefix = randomUUID();
  private sequence = 0;
  private cancelRenewal: (() => void) | undefined;

  constructor(
    private readonly counters: CountersConnection,
    options: RedisConcurrencyStoreOptions,
  ) {
    super();
    this.keyPrefix = options.keyPrefix;
    this.clock = options.clock;
    this.leaseMs = options.leaseMs ?? DEFAULT_CONCURRENCY_LEASE_MS;
    this.redis = counters.connection as ConcurrencyRedis;
    this.redis.defineCommand('acquireConcurrencySlot', { numberOfKeys: 1, lua: ACQUIRE_SCRIPT });
    this.redis.defineCommand('renewConcurrencySlots', { numberOfKeys: 1, lua: RENEW_SCRIPT });
  }

  async acquire(key: string, cap: number): Promise<InFlightSlot | null> {
    const redis = this.connection();
    if (redis) {
      const set = concurrencyRedisKey(this.keyPrefix, key);
      const token = `${this.tokenPrefix}:${++this.sequence}`;
      try {
        const taken = await redis.acquireConcurrencySlot(set, Math.floor(this.clock.now()), cap, token, this.leaseMs);
        if (taken !== 1) return null;
        return this.hold(set, token);
      } catch {
        // Counted in memory below, as the counters are when Redis fails.
      }
    }
    return this.fallback.acquire(key, cap);
  }

  /** Stops renewing: the places still held lapse by themselves; Nest calls it at shutdown, before the connection closes. */
  async onApplicationShutdown(): Promise<void> {
    this.cancelRenewal?.();
    this.cancelRenewal = undefined;
    this.held.clear();
  }

  private hold(set: string, token: string): InFlightSlot {
    let tokens = this.held.get(set);
    if (!tokens) this.held.set(set, (tokens = new Set()));
    tokens.add(token);
    this.scheduleRenewal();
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        this.forget(set, token);
        await this.connection()
          ?.zrem(set, token)
          .catch(() => undefined);
      },
    };
  }

  private forget(set: string, token: string): void {
    const tokens = this.held.get(set);
    tokens?.delete(token);
    if (tokens?.size === 0) this.held.delete(set);
  }

  /** One timer for every place this instance holds, armed only while it holds some. */
  private scheduleRenewal(): void {
    if (this.cancelRenewal) return;
    this.cancelRenewal = this.clock.schedule(() => {
      this.cancelRenewal = undefined;
      this.renew();
      if (this.held.size > 0) this.scheduleRenewal();
    }, this.leaseMs / RENEWALS_PER_LEASE);
  }

  private renew(): void {
    const redis = this.connection();
    if (!redis) return;
    const now = Math.floor(this.clock.now());
    for (const [set, tokens] of this.held) {
      // A renewal that fails is retried on the next tick; the lease outlasts a few.
      redis.renewConcurrencySlots(set, now, this.leaseMs, ...tokens).catch(() => undefined);
    }
  }

  private connection(): ConcurrencyRedis | undefined {
    return this.counters.degraded ? undefined : this.redis;
  }
}
