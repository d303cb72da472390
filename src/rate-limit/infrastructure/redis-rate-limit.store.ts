import Redis, { Cluster, type RedisOptions } from 'ioredis';
import { type BanPolicy, type RateLimitDecision, RateLimitStore, type WindowReport, type WindowSpec, type WindowUse } from '../domain/rate-limit-store';
import { MemoryRateLimitStore } from './memory-rate-limit.store';
import { CONSUME_SCRIPT, PEEK_SCRIPT, REFUND_SCRIPT } from './redis-rate-limit.script';

/** What the store says about Redis going away and coming back; Nest's `Logger` fits. */
export interface RateLimitLogger {
  warn(message: string): void;
  log(message: string): void;
}

/** A Redis Cluster seed node. */
export interface RedisClusterNode {
  readonly host: string;
  readonly port: number;
}

export interface RedisRateLimitStoreOptions {
  /** One Redis: `redis://[user:password@]host:port[/db]`; never logged. */
  readonly url?: string;
  /** A Redis Cluster, by its seed nodes; used instead of `url`. */
  readonly clusterNodes?: readonly RedisClusterNode[];
  readonly logger: RateLimitLogger;
  /** Prefix of every hash this store writes. */
  readonly keyPrefix?: string;
  /** Longest wait for Redis before a request is answered from memory. */
  readonly commandTimeoutMs?: number;
}

/** allowed, banned, retryAfterSeconds, the binding window's 1-based position, then remaining and resetAtMs per window (both scripts). */
type ConsumeReply = number[];

type RateLimitRedis = (Redis | Cluster) & {
  consumeRateLimit(key: string, ...args: (string | number)[]): Promise<ConsumeReply>;
  consumeSharedRateLimit(key: string, banKey: string, ...args: (string | number)[]): Promise<ConsumeReply>;
  peekRateLimit(key: string, ...args: (string | number)[]): Promise<ConsumeReply>;
  peekSharedRateLimit(key: string, banKey: string, ...args: (string | number)[]): Promise<ConsumeReply>;
  refundRateLimit(key: string, ...args: (string | number)[]): Promise<unknown>;
};

/** The script commands of each store operation: for one hash, and for an account's hash with a key's ban hash. */
const COMMANDS = {
  consume: { single: 'consumeRateLimit', shared: 'consumeSharedRateLimit' },
  peek: { single: 'peekRateLimit', shared: 'peekSharedRateLimit' },
} as const;

export const DEFAULT_RATE_LIMIT_KEY_PREFIX = 'animal-store:rate-limit:';

/**
 * Generous on purpose: under a burst the event loop can be busy for hundreds of
 * milliseconds, and a timer that fires before the waiting reply is read would
 * wrongly split the shared limit into per-instance ones. A dead connection is
 * noticed at once anyway (no offline queue).
 */
export const DEFAULT_COMMAND_TIMEOUT_MS = 2_000;

/**
 * Counters shared by every instance through Redis: one Lua script (EVALSHA,
 * one round trip) checks and counts a request atomically on one hash per key,
 * which expires once its windows and ban have ended.
 *
 * Degraded, fail-open to per-instance limits: when Redis cannot be reached, or
 * a call fails or takes longer than `commandTimeoutMs`, the request is counted
 * by an in-process `MemoryRateLimitStore` instead, so each instance limits
 * alone until Redis answers again. A request never waits on a reconnect
 * (no offline queue); ioredis reconnects by itself. A call that timed out may
 * still run in Redis later, so an outage errs toward counting a request twice,
 * never toward not counting it.
 */
export class RedisRateLimitStore extends RateLimitStore {
  private readonly redis: RateLimitRedis;
  private readonly fallback = new MemoryRateLimitStore();
  private readonly keyPrefix: string;
  private readonly logger: RateLimitLogger;
  /** Undefined until the first connection succeeds or fails. */
  private redisUp: boolean | undefined;
  /** A cluster's node connections open lazily and refuse their first command while opening, so they are opened first. */
  private nodesOpen: boolean;
  private closing = false;

  constructor(options: RedisRateLimitStoreOptions) {
    super();
    this.keyPrefix = options.keyPrefix ?? DEFAULT_RATE_LIMIT_KEY_PREFIX;
    this.logger = options.logger;
    this.redis = connect(options);
    for (const [operation, lua] of [['consume', CONSUME_SCRIPT], ['peek', PEEK_SCRIPT]] as const) {
      this.redis.defineCommand(COMMANDS[operation].single, { numberOfKeys: 1, lua });
      this.redis.defineCommand(COMMANDS[operation].shared, { numberOfKeys: 2, lua });
    }
    this.redis.defineCommand('refundRateLimit', { numberOfKeys: 1, lua: REFUND_SCRIPT });
    this.nodesOpen = !(this.redis instanceof Cluster);
    if (this.redis instanceof Cluster) {
      const cluster = this.redis;
      cluster.on('ready', () => this.openNodes(cluster));
      // Replicas too, so that one promoted in a failover is already connected.
      cluster.on('+node', (node: Redis) => void node.ping().catch(() => undefined));
    } else {
      this.redis.on('ready', () => this.markUp());
    }
    this.redis.on('error', (error: Error) => this.markDown(error));
    this.redis.on('close', () => this.markDown(new Error('connection closed')));
  }

  /** The connection, which the concurrency cap's places share: they lie in each tracker's slot too. */
  get connection(): Redis | Cluster {
    return this.redis;
  }

  /** True while requests are answered from this instance's memory rather than Redis. */
  get degraded(): boolean {
    return !this.isUsable() || this.redisUp !== true;
  }

  consume(key: string, windows: readonly WindowSpec[], policy: BanPolicy, nowMs: number, banSubject?: string): Promise<RateLimitDecision> {
    return this.run('consume', key, windows, policy, nowMs, banSubject);
  }

  peek(key: string, windows: readonly WindowSpec[], policy: BanPolicy, nowMs: number, banSubject?: string): Promise<RateLimitDecision> {
    return this.run('peek', key, windows, policy, nowMs, banSubject);
  }

  /** Where the request was counted, Redis or this instance's memory; a window that does not match its count is left alone. */
  async refund(key: string, windows: readonly WindowSpec[], counted: RateLimitDecision, nowMs: number): Promise<void> {
    if (this.isUsable()) {
      const args = windows.flatMap((window, i) => ((window.use ?? 'count') === 'count' ? [window.name, counted.windows[i].resetAtMs] : []));
      try {
        await this.redis.refundRateLimit(redisKey(this.keyPrefix, key), Math.floor(nowMs), ...args);
        this.markUp();
        return;
      } catch (error) {
        // A refund lost with Redis leaves the request counted, as an outage errs toward counting.
        this.markDown(error as Error);
      }
    }
    await this.fallback.refund(key, windows, counted, nowMs);
  }

  /** Readiness: rejects when Redis does not answer (requests would run degraded), or a cluster has slots no master serves. */
  async ping(): Promise<void> {
    if (!(this.redis instanceof Cluster)) {
      await this.redis.ping();
      return;
    }
    const info = await this.redis.cluster('INFO');
    if (!/^cluster_state:ok\b/m.test(info)) throw new Error('the Redis Cluster does not serve every slot');
  }

  async close(): Promise<void> {
    this.closing = true;
    if (this.redis.status === 'ready') {
      await this.redis.quit().catch(() => this.redis.disconnect());
    } else {
      this.redis.disconnect();
    }
    await this.fallback.close();
  }

  /** One script call in Redis; when Redis fails, the same operation on this instance's memory. */
  private async run(
    operation: keyof typeof COMMANDS,
    key: string,
    windows: readonly WindowSpec[],
    policy: BanPolicy,
    nowMs: number,
    banSubject: string | undefined,
  ): Promise<RateLimitDecision> {
    if (this.isUsable()) {
      try {
        const args = [Math.floor(nowMs), policy.banAfterRejections, policy.banMs, policy.burstGraceMs ?? 0, ...windows.flatMap((w) => [w.name, w.limit, w.durationMs, SCRIPT_USE[w.use ?? 'count']])];
        const hash = redisKey(this.keyPrefix, key);
        const commands = COMMANDS[operation];
        const reply =
          banSubject === undefined
            ? await this.redis[commands.single](hash, ...args)
            : await this.redis[commands.shared](hash, banRedisKey(hash, banSubject), ...args);
        this.markUp();
        return toDecision(reply, windows, nowMs);
      } catch (error) {
        this.markDown(error as Error);
        // After a failover the slot map is stale until refreshed; concurrent refreshes are coalesced by ioredis.
        if (this.redis instanceof Cluster) this.redis.refreshSlotsCache();
      }
    }
    return this.fallback[operation](key, windows, policy, nowMs, banSubject);
  }

  private isUsable(): boolean {
    return this.redis.status === 'ready' && this.nodesOpen;
  }

  private openNodes(cluster: Cluster): void {
    Promise.all(cluster.nodes('master').map((node) => node.ping())).then(
      () => {
        this.nodesOpen = true;
        this.markUp();
      },
      (error: Error) => this.markDown(error),
    );
  }

  private markUp(): void {
    if (this.redisUp === false) this.logger.log('Rate-limit counters: Redis answers again; limits are shared across instances again');
    this.redisUp = true;
  }

  private markDown(error: Error): void {
    if (this.closing || this.redisUp === false) return;
    this.redisUp = false;
    // The error's own text, never the command: it would carry the key.
    this.logger.warn(
      `Rate-limit counters: Redis unavailable (${error.message}); degraded, fail-open to per-instance limits in memory until it answers again`,
    );
  }
}

/**
 * The tracker is the key's hash tag, so that every key the script ever touches
 * for one tracker lies in that tracker's cluster slot (docs/adr/0009).
 */
export function redisKey(prefix: string, tracker: string): string {
  return `${prefix}{${tracker}}`;
}

/** A ban subject's hash carries the tag of the shared hash, so the script's two keys lie in one slot. */
export function banRedisKey(sharedHash: string, banSubject: string): string {
  return `${sharedHash}:${banSubject}`;
}

/**
 * Fail fast rather than wait: no offline queue, no retry of a command, and on a
 * cluster no delayed retry during a failover, so the request is counted in
 * memory at once (the fail-open rule) while ioredis reconnects by itself.
 */
function connect(options: RedisRateLimitStoreOptions): RateLimitRedis {
  const redisOptions: RedisOptions = {
    commandTimeout: options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
    connectTimeout: 2_000,
    disconnectTimeout: 500,
    maxRetriesPerRequest: 0,
  };
  if (options.clusterNodes && options.url === undefined) {
    return new Cluster(
      options.clusterNodes.map(({ host, port }) => ({ host, port })),
      {
        redisOptions,
        enableOfflineQueue: false,
        // The ready check's CLUSTER INFO may go out before the node connections are open and, with no offline queue,
        // fail and reconnect; the store opens the masters itself before it counts in the cluster.
        enableReadyCheck: false,
        retryDelayOnFailover: 0,
        retryDelayOnClusterDown: 0,
        retryDelayOnTryAgain: 0,
        slotsRefreshTimeout: 2_000,
        slotsRefreshInterval: 5_000,
      },
    ) as RateLimitRedis;
  }
  if (options.url === undefined || options.clusterNodes) throw new Error('RedisRateLimitStore needs either a url or clusterNodes');
  return new Redis(options.url, { ...redisOptions, enableOfflineQueue: false }) as RateLimitRedis;
}

/** A window's use as the scripts read it. */
const SCRIPT_USE: Record<WindowUse, number> = { count: 2, check: 1, report: 0 };

function toDecision(reply: ConsumeReply, specs: readonly WindowSpec[], nowMs: number): RateLimitDecision {
  const [allowed, banned, retryAfterSeconds, bindingAt] = reply;
  const windows: WindowReport[] = specs.map(({ name, limit, durationMs }, i) => ({
    name,
    limit,
    durationMs,
    remaining: reply[4 + 2 * i],
    resetAtMs: reply[5 + 2 * i],
  }));
  const { name, limit, remaining, resetAtMs } = windows[bindingAt - 1];
  return {
    allowed: allowed === 1,
    banned: banned === 1,
    retryAfterSeconds,
    binding: { name, limit, remaining, resetAtMs },
    windows,
    atMs: Math.floor(nowMs),
  };
}
