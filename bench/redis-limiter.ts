/**
 * How many limiter operations per second one Redis and a Redis Cluster serve:
 * `--concurrency` callers in flight, each a `consume` of the service's own
 * RedisRateLimitStore (one Lua script call) on one of `--keys` callers, for
 * `--seconds` per target. See bench/README.md.
 *
 *   npx ts-node --transpile-only bench/redis-limiter.ts [--concurrency 64] [--seconds 5] [--keys 10000] [--target redis|cluster|both]
 */
import { parseArgs } from 'node:util';
import Redis from 'ioredis';
import { RedisRateLimitStore } from '../src/rate-limit/infrastructure/redis-rate-limit.store';
import { startRedisCluster } from '../test/support/redis-cluster';
import { planWindows } from '../test/support/rate-limit-fixtures';

const { values } = parseArgs({
  options: {
    concurrency: { type: 'string', default: '64' },
    seconds: { type: 'string', default: '5' },
    keys: { type: 'string', default: '10000' },
    target: { type: 'string', default: 'both' },
    'redis-url': { type: 'string', default: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' },
  },
});
const concurrency = Math.min(1_000, Math.max(1, Number(values.concurrency)));
const seconds = Math.min(60, Math.max(1, Number(values.seconds)));
const keys = Math.min(1_000_000, Math.max(1, Number(values.keys)));
const windows = planWindows(1_000_000_000, 1_000_000_000);
const policy = { banAfterRejections: 30, banMs: 900_000 };

interface Result {
  readonly target: string;
  readonly operations: number;
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly fallbacks: number;
}

async function measure(target: string, store: RedisRateLimitStore, warnings: string[]): Promise<Result> {
  const deadline = Date.now() + 15_000;
  while (store.degraded && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  if (store.degraded) throw new Error(`${target}: Redis did not answer`);
  const latencies: number[] = [];
  let next = 0;
  const run = async (until: number, record: boolean) => {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (Date.now() < until) {
          const started = performance.now();
          await store.consume(`bench:${next++ % keys}`, windows, policy, Date.now());
          if (record) latencies.push(performance.now() - started);
        }
      }),
    );
  };
  await run(Date.now() + 1_000, false);
  const started = performance.now();
  await run(Date.now() + seconds * 1_000, true);
  const elapsed = (performance.now() - started) / 1_000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Number(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))].toFixed(2));
  return { target, operations: latencies.length, perSecond: Math.round(latencies.length / elapsed), p50Ms: at(0.5), p99Ms: at(0.99), fallbacks: warnings.length };
}

const allWarnings: string[] = [];

async function main(): Promise<void> {
  const prefix = `animal-store-bench:${process.pid}:`;
  const results: Result[] = [];
  const logger = (warnings: string[]) => ({
    warn: (message: string) => {
      warnings.push(message);
      allWarnings.push(message);
    },
    log: () => undefined,
  });

  if (values.target !== 'cluster') {
    const warnings: string[] = [];
    const store = new RedisRateLimitStore({ url: values['redis-url'], keyPrefix: prefix, logger: logger(warnings) });
    try {
      results.push(await measure('one Redis', store, warnings));
    } finally {
      await store.close();
      const redis = new Redis(values['redis-url'] as string);
      let cursor = '0';
      do {
        const [nextCursor, found] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1_000);
        if (found.length) await redis.del(...found);
        cursor = nextCursor;
      } while (cursor !== '0');
      redis.disconnect();
    }
  }
  if (values.target !== 'redis') {
    const cluster = await startRedisCluster();
    const warnings: string[] = [];
    const store = new RedisRateLimitStore({
      clusterNodes: cluster.ports.map((port) => ({ host: '127.0.0.1', port })),
      keyPrefix: prefix,
      logger: logger(warnings),
    });
    try {
      const result = await measure('cluster, 3 masters', store, warnings);
      results.push(result, { ...result, target: 'per cluster shard (÷ 3)', perSecond: Math.round(result.perSecond / 3) });
    } finally {
      await store.close();
      await cluster.stop();
    }
  }
  console.log(`concurrency ${concurrency}, ${seconds} s per target, ${keys} callers`);
  console.table(results);
  if (allWarnings.length) console.log(`Answered from memory at times: ${[...new Set(allWarnings)].join('; ')}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
