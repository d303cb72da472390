import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { GaleraCluster } from './galera-cluster';
import { freePort } from './ports';
import { waitFor } from './wait-for';

const PROXY = join(__dirname, '..', '..', 'deploy', 'galera-proxy');

/** What the proxy needs that may be missing here: Debian's HAProxy, and the MariaDB client its node check runs. */
export function missingProxyTools(): string[] {
  return [
    ['haproxy', '-v'],
    ['mariadb', '--version'],
  ]
    .filter(([command, flag]) => spawnSync(command, [flag], { stdio: 'pipe', timeout: 10_000 }).status !== 0)
    .map(([command]) => command);
}

/** HAProxy on loopback in front of a cluster, run from the Galera stack's own file (deploy/galera-proxy/haproxy.cfg). */
export interface GaleraProxy {
  /** `mysql://root@127.0.0.1:<proxy port>/<database>`: the one address the service is given. */
  readonly databaseUrl: string;
  /** The node (0-based) a new connection through the proxy reaches. */
  nodeBehind(): Promise<number>;
  /** What HAProxy printed: each node it took out or put back. */
  output(): string;
  /** Stops HAProxy by its pid. */
  stop(): Promise<void>;
}

/** Starts HAProxy detached and resolves once a connection through it reaches the first node. */
export async function startGaleraProxy(cluster: GaleraCluster, database: string): Promise<GaleraProxy> {
  const port = await freePort();
  const child: ChildProcess = spawn('haproxy', ['-db', '-f', join(PROXY, 'haproxy.cfg')], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      GALERA_PROXY_BIND: `127.0.0.1:${port}`,
      GALERA_NODE_CHECK: join(PROXY, 'galera-node-check.sh'),
      ...Object.fromEntries(cluster.addresses.map((address, index) => [`GALERA_NODE_${index + 1}`, address])),
    },
  });
  let printed = '';
  child.stdout?.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const exited = once(child, 'exit');
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    process.kill(child.pid as number, 'SIGTERM');
    await exited;
  };
  const nodeBehind = async (): Promise<number> => {
    const connection = await createConnection({ host: '127.0.0.1', port, user: 'root', connectTimeout: 2_000 });
    try {
      const [rows] = await connection.query('SELECT @@wsrep_node_name AS name');
      return Number((rows as Array<{ name: string }>)[0].name.slice('node-'.length)) - 1;
    } finally {
      connection.destroy();
    }
  };
  try {
    await waitFor(async () => child.exitCode === null && (await nodeBehind()) === 0, 'HAProxy to reach the first node', 30_000);
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}:\n${printed}`);
  }
  return { databaseUrl: `mysql://root@127.0.0.1:${port}/${database}`, nodeBehind, output: () => printed, stop };
}
