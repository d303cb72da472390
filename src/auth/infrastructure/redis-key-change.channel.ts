import Redis, { Cluster } from 'ioredis';
import { KeyChange, KeyChangeChannel, parseKeyChange } from '../domain/key-change';

export interface RedisKeyChangeChannelOptions {
  readonly url?: string;
  readonly clusterNodes?: ReadonlyArray<{ readonly host: string; readonly port: number }>;
  /** The channel's name: the deployment's Redis key prefix, so deployments sharing a server stay apart. */
  readonly channel: string;
  readonly onError: (message: string) => void;
}

/** How long the keys command waits for Redis before it says the cache bound applies instead. */
const PUBLISH_TIMEOUT_MS = 2_000;

/**
 * Key changes over Redis pub/sub (PUBLISH and SUBSCRIBE, which a Redis
 * Cluster carries to every node). Each side opens its own connection, only
 * when it is used: a subscriber's connection can do nothing else.
 */
export class RedisKeyChangeChannel extends KeyChangeChannel {
  private subscriber: Redis | Cluster | undefined;
  private publisher: Redis | Cluster | undefined;

  constructor(private readonly options: RedisKeyChangeChannelOptions) {
    super();
  }

  async publish(change: KeyChange): Promise<boolean> {
    // Fails fast rather than queue, so a command run while Redis is away says so.
    if (!this.publisher) {
      this.publisher = this.connect({ lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, connectTimeout: PUBLISH_TIMEOUT_MS, retryStrategy: () => null });
      // The failed publish below reports it; the event would otherwise be printed as unhandled.
      this.publisher.on('error', () => undefined);
    }
    try {
      if (this.publisher.status === 'wait') await this.publisher.connect();
      await this.publisher.publish(this.options.channel, JSON.stringify(change));
      return true;
    } catch (error) {
      this.options.onError(`could not tell the instances through Redis: ${(error as Error).message}`);
      return false;
    }
  }

  subscribe(listener: (change: KeyChange) => void): void {
    const subscriber = (this.subscriber ??= this.connect({}));
    let reported = false;
    // ioredis reconnects and subscribes again by itself; one warning per outage is enough.
    subscriber.on('error', (error: Error) => {
      if (!reported) this.options.onError(`key changes are not heard until Redis is back (${error.message}); cached keys lapse within their lifetime meanwhile`);
      reported = true;
    });
    subscriber.on('ready', () => (reported = false));
    subscriber.on('message', (channel: string, message: string) => {
      const change = channel === this.options.channel ? parseKeyChange(message) : null;
      if (change) listener(change);
    });
    subscriber.subscribe(this.options.channel).catch(() => undefined);
  }

  async close(): Promise<void> {
    for (const connection of [this.subscriber, this.publisher]) connection?.disconnect();
  }

  private connect(options: Record<string, unknown>): Redis | Cluster {
    const { url, clusterNodes } = this.options;
    if (clusterNodes) {
      const { retryStrategy, ...redisOptions } = options;
      return new Cluster([...clusterNodes], { lazyConnect: options.lazyConnect === true, ...(retryStrategy ? { clusterRetryStrategy: () => null } : {}), redisOptions });
    }
    return new Redis(url as string, options);
  }
}
