import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { REDIS } from './local-services';

/** The shared Redis of this machine; specs write only under their own random prefix. */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? `redis://${REDIS.host}:${REDIS.port}`;

export const isRedisAvailable = (): boolean => process.env.REDIS_AVAILABLE === '1';

/**
 * `describe` for specs that need Redis. With no reachable server (outside CI,
 * where the global setup already failed the run) the block is reported as
 * skipped, never silently passed.
 */
export function describeWithRedis(name: string, body: () => void): void {
  (isRedisAvailable() ? describe : describe.skip)(`${name} [redis]`, body);
}

export function randomKeyPrefix(): string {
  return `animal-store-test:${process.pid}:${randomBytes(4).toString('hex')}:`;
}

/** Deletes what a spec wrote under its prefix, and nothing else: other work shares this server. */
export async function deleteKeysUnder(prefix: string, url = TEST_REDIS_URL): Promise<void> {
  if (!prefix.startsWith('animal-store-test:')) throw new Error(`Refusing to delete keys under ${prefix}`);
  const redis = new Redis(url);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/** Polls `condition` (a connection coming up, a warning being logged) until it holds. */
export async function waitUntil(condition: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('Timed out waiting for a condition');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
