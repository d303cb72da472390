import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { freePort } from './ports';
import { waitFor } from './wait-for';

/** A Redis Cluster of three masters and three replicas on loopback, in processes this spec owns. */
export interface LocalRedisCluster {
  readonly ports: readonly number[];
  /** `127.0.0.1:P,...` as REDIS_CLUSTER_NODES takes it. */
  readonly seeds: string;
  /** The port of the master that serves `key`'s slot, and its replica's. */
  ownersOf(key: string): Promise<{ master: number; replica: number }>;
  /** SIGKILL to the server on `port`, as a crashed master. */
  kill(port: number): void;
  /** Stops every server it started, by pid, and removes its directory. */
  stop(): Promise<void>;
}

export const isClusterToolsAvailable = (): boolean => process.env.REDIS_CLUSTER_TOOLS_AVAILABLE === '1';

async function withNode<T>(port: number, use: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  // A node that is not up yet is polled again; its refusal is expected.
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return await use(redis);
  } finally {
    redis.disconnect();
  }
}

type SlotRange = [start: number, end: number, master: [host: string, port: number], ...replicas: [string, number][]];

/** The end of a node's log, to say why it did not come up. */
function logTail(dir: string, port: number): string {
  try {
    return readFileSync(join(dir, `node-${port}.log`), 'utf8').trim().split('\n').slice(-5).join('\n');
  } catch {
    return '(no log)';
  }
}

/** Starts one node and waits for its PONG; a node that exits first, its port taken after all, is started again on another. */
async function startNode(dir: string, taken: Set<number>, servers: Map<number, ChildProcess>): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort({ alsoFree: [10_000], taken });
    taken.add(port).add(port + 10_000);
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`];
    // Five seconds, so a node starved of CPU on a busy machine is not taken for failed in the middle of a spec.
    args.push('--cluster-node-timeout', '5000', '--save', '', '--appendonly', 'no', '--dir', dir, '--logfile', `node-${port}.log`);
    const server = spawn('redis-server', args, { stdio: 'ignore' });
    servers.set(port, server);
    const exited = () => server.exitCode !== null || server.signalCode !== null;
    try {
      await waitFor(async () => exited() || (await withNode(port, async (redis) => (await redis.ping()) === 'PONG')), `redis-server on ${port}`);
    } catch (error) {
      throw new Error(`${(error as Error).message}; its log ends:\n${logTail(dir, port)}`);
    }
    if (!exited()) return port;
    if (attempt === 3) throw new Error(`redis-server on ${port} exited at start, for the third time; its log ends:\n${logTail(dir, port)}`);
  }
}

export async function startRedisCluster(): Promise<LocalRedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'animal-store-cluster-'));
  const taken = new Set<number>();
  const ports: number[] = [];
  const servers = new Map<number, ChildProcess>();
  const stop = async (): Promise<void> => {
    await Promise.all(
      [...servers.values()].map(
        (server) =>
          new Promise<void>((resolve) => {
            if (server.exitCode !== null || server.signalCode !== null) return resolve();
            server.once('exit', () => resolve());
            process.kill(server.pid as number, 'SIGTERM');
          }),
      ),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < 6; i++) ports.push(await startNode(dir, taken, servers));
    const create = spawnSync('redis-cli', ['--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', '1', '--cluster-yes'], {
      stdio: 'pipe',
      timeout: 60_000,
    });
    if (create.status !== 0) throw new Error(`redis-cli --cluster create failed: ${create.stdout.toString()}${create.stderr.toString()}`);
    await Promise.all(
      ports.map((port) => waitFor(() => withNode(port, async (redis) => /cluster_state:ok/.test(String(await redis.cluster('INFO')))), 'cluster_state:ok')),
    );
    // A master can only fail over to a replica that is attached and in sync.
    await waitFor(
      () => withNode(ports[0], async (redis) => ((await redis.cluster('SLOTS')) as unknown as SlotRange[]).every((range) => range.length >= 4)),
      'a replica for every master',
    );
    await Promise.all(
      ports.map((port) =>
        waitFor(() => withNode(port, async (redis) => !/role:slave/.test(await redis.info('replication')) || /master_link_status:up/.test(await redis.info('replication'))), 'replicas in sync'),
      ),
    );
  } catch (error) {
    await stop();
    throw error;
  }

  const alive = () => ports.filter((port) => servers.get(port)?.exitCode === null && servers.get(port)?.signalCode === null);
  return {
    ports,
    seeds: ports.map((port) => `127.0.0.1:${port}`).join(','),
    ownersOf: (key) =>
      withNode(alive()[0], async (redis) => {
        const slot = Number(await redis.cluster('KEYSLOT', key));
        const ranges = (await redis.cluster('SLOTS')) as unknown as SlotRange[];
        const range = ranges.find(([start, end]) => slot >= start && slot <= end);
        if (!range) throw new Error(`No master serves slot ${slot}`);
        return { master: Number(range[2][1]), replica: Number(range[3][1]) };
      }),
    kill: (port) => {
      process.kill(servers.get(port)?.pid as number, 'SIGKILL');
    },
    stop,
  };
}
