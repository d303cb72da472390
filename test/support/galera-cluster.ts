import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection, createConnection } from 'mysql2/promise';
import { freePort } from './ports';
import { waitFor } from './wait-for';

export const GALERA_PROVIDER = '/usr/lib/galera/libgalera_smm.so';

/** What a cluster on loopback needs that may be missing here: the server, Galera's library, and the state transfer's tools. */
export function missingGaleraTools(): string[] {
  // socat answers -V, not --version.
  const commands = [['mariadbd', '--version'], ['mariadb-install-db', '--version'], ['mariabackup', '--version'], ['socat', '-V']]
    .filter(([command, flag]) => spawnSync(command, [flag], { stdio: 'pipe', timeout: 10_000 }).status !== 0)
    .map(([command]) => command);
  return existsSync(GALERA_PROVIDER) ? commands : [...commands, GALERA_PROVIDER];
}

/** A MariaDB Galera cluster on loopback, in processes and folders the spec owns. */
export interface GaleraCluster {
  readonly size: number;
  /** `127.0.0.1:P` of each node's client port, in order. */
  readonly addresses: readonly string[];
  /** `mysql://root@127.0.0.1:P/<database>` of one node (0-based). */
  nodeUrl(node: number): string;
  /** Runs SQL on one node (0-based), in the cluster's database, after the node has applied every write the cluster committed. */
  query<T = Record<string, unknown>>(node: number, sql: string, parameters?: unknown[]): Promise<T[]>;
  /** SIGKILL to one node's server, by its pid, as a crash. */
  kill(node: number): Promise<void>;
  /** Starts a node again on its folder and resolves once it has rejoined and is Synced. */
  restart(node: number): Promise<void>;
  /** `wsrep_local_state_comment` and `wsrep_cluster_size` as one node reports them. */
  state(node: number): Promise<{ state: string; clusterSize: number }>;
  /** Stops every server by pid and removes the folders. */
  stop(): Promise<void>;
}

interface Node {
  readonly index: number;
  readonly dir: string;
  readonly port: number;
  readonly cnf: string;
  process?: ChildProcess;
}

async function onNode<T>(port: number, use: (connection: Connection) => Promise<T>, database?: string): Promise<T> {
  const connection = await createConnection({ host: '127.0.0.1', port, user: 'root', database, connectTimeout: 2_000 });
  try {
    return await use(connection);
  } finally {
    await connection.end().catch(() => connection.destroy());
  }
}

/**
 * Starts `size` nodes, each a `mariadbd` with its own folder, `my.cnf` (read
 * with `--defaults-file`, since mariabackup refuses options given on the command
 * line) and four ports: client, group communication, incremental and full
 * state transfer. The first node bootstraps the cluster; each other joins by
 * a mariabackup state transfer and is waited for until Synced. Each server is
 * detached in a process group of its own.
 */
export async function startGaleraCluster(database: string, size = 3): Promise<GaleraCluster> {
  // A spec creates and drops whole databases: never anything whose name lacks "test".
  if (!database.includes('test')) throw new Error(`Refusing to use database ${database}`);
  const root = mkdtempSync(join(tmpdir(), 'animal-store-galera-'));
  const taken = new Set<number>();
  const port = async () => {
    const free = await freePort({ taken });
    taken.add(free);
    return free;
  };
  const ports: Array<{ client: number; group: number; ist: number; sst: number }> = [];
  for (let index = 0; index < size; index++) ports.push({ client: await port(), group: await port(), ist: await port(), sst: await port() });
  const clusterAddress = `gcomm://${ports.map(({ group }) => `127.0.0.1:${group}`).join(',')}`;

  const nodes: Node[] = ports.map((own, index) => {
    const dir = join(root, `node-${index + 1}`);
    const data = join(dir, 'data');
    mkdirSync(dir, { recursive: true });
    const cnf = join(dir, 'my.cnf');
    writeFileSync(
      cnf,
      [
        '[mysqld]',
        `datadir=${data}`,
        `port=${own.client}`,
        `socket=${join(dir, 'mysqld.sock')}`,
        `pid-file=${join(dir, 'mysqld.pid')}`,
        `log-error=${join(dir, 'error.log')}`,
        'user=root',
        'bind-address=127.0.0.1',
        'innodb_buffer_pool_size=32M',
        'binlog_format=ROW',
        'innodb_autoinc_lock_mode=2',
        // As deploy/galera/cluster.cnf: a read waits until the node has applied every write the cluster committed before it.
        'wsrep_sync_wait=1',
        'wsrep_on=ON',
        `wsrep_provider=${GALERA_PROVIDER}`,
        `wsrep_cluster_address=${clusterAddress}`,
        `wsrep_node_address=127.0.0.1:${own.group}`,
        `wsrep_node_name=node-${index + 1}`,
        // A crashed member is suspected sooner than by Galera's defaults, so the survivors carry on within the spec's bounds.
        `wsrep_provider_options="gmcast.listen_addr=tcp://127.0.0.1:${own.group};ist.recv_addr=127.0.0.1:${own.ist};gcache.size=64M;evs.suspect_timeout=PT3S;evs.inactive_timeout=PT6S"`,
        `wsrep_sst_receive_address=127.0.0.1:${own.sst}`,
        // As deploy/galera's node files: a donor the proxy is least likely to be using, the last nodes first, else any.
        `wsrep_sst_donor=${ports.map((_, other) => `node-${other + 1}`).filter((_, other) => other !== index).reverse().join(',')},`,
        'wsrep_sst_method=mariabackup',
        'wsrep_sst_auth=root:',
        '',
        '[mariabackup]',
        `socket=${join(dir, 'mysqld.sock')}`,
        '',
      ].join('\n'),
    );
    return { index, dir, port: own.client, cnf };
  });

  const errorLog = (node: Node) => {
    try {
      return readFileSync(join(node.dir, 'error.log'), 'utf8').split('\n').slice(-30).join('\n');
    } catch {
      return '(no error log)';
    }
  };
  const state = (node: Node) =>
    onNode(node.port, async (connection) => {
      const [rows] = await connection.query("SHOW STATUS WHERE Variable_name IN ('wsrep_local_state_comment', 'wsrep_cluster_size')");
      const status = new Map((rows as Array<{ Variable_name: string; Value: string }>).map((row) => [row.Variable_name, row.Value]));
      return { state: status.get('wsrep_local_state_comment') ?? 'unknown', clusterSize: Number(status.get('wsrep_cluster_size')) };
    });
  const start = async (node: Node, bootstrap: boolean): Promise<void> => {
    const args = [`--defaults-file=${node.cnf}`, ...(bootstrap ? ['--wsrep-new-cluster'] : [])];
    node.process = spawn('mariadbd', args, { detached: true, stdio: 'ignore' });
    node.process.unref();
    const exited = once(node.process, 'exit').then(() => {
      throw new Error(`mariadbd (node ${node.index + 1}) exited while starting:\n${errorLog(node)}`);
    });
    // A joiner's state transfer copies the whole data folder: it gets longer than a plain start.
    await Promise.race([waitFor(async () => (await state(node)).state === 'Synced', `node ${node.index + 1} to be Synced`, 120_000), exited]);
    exited.catch(() => undefined);
  };
  /** Signals the node's server by its pid and waits for it to exit; one that outlasts its grace period gets SIGKILL. */
  const signal = async (node: Node, name: NodeJS.Signals): Promise<void> => {
    const child = node.process;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    process.kill(child.pid as number, name);
    const timer = setTimeout(() => child.exitCode === null && child.signalCode === null && process.kill(child.pid as number, 'SIGKILL'), 30_000);
    await exited;
    clearTimeout(timer);
  };
  const stop = async (): Promise<void> => {
    await Promise.all(nodes.map((node) => signal(node, 'SIGTERM')));
    rmSync(root, { recursive: true, force: true });
  };

  try {
    for (const node of nodes) {
      // Root with an empty password, over TCP too: the state transfer's mariabackup refuses a server that skips its grant tables.
      const install = spawnSync(
        'mariadb-install-db',
        ['--no-defaults', `--datadir=${join(node.dir, 'data')}`, '--user=root', '--skip-test-db', '--auth-root-authentication-method=normal'],
        { stdio: 'pipe', timeout: 60_000 },
      );
      if (install.status !== 0) throw new Error(`mariadb-install-db failed: ${install.error?.message ?? install.stderr.toString()}`);
    }
    await start(nodes[0], true);
    // One joiner at a time, each served by a donor that is Synced.
    for (const node of nodes.slice(1)) await start(node, false);
    await onNode(nodes[0].port, async (connection) => {
      await connection.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
      // The account of HAProxy's node check, as deploy/galera/cluster-init.sql creates it.
      await connection.query("CREATE USER 'galera_check'@'127.0.0.1' WITH MAX_USER_CONNECTIONS 10");
    });
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    size,
    addresses: nodes.map((node) => `127.0.0.1:${node.port}`),
    nodeUrl: (index) => `mysql://root@127.0.0.1:${nodes[index].port}/${database}`,
    query: <T>(index: number, sql: string, parameters: unknown[] = []) =>
      onNode(
        nodes[index].port,
        async (connection) => {
          await connection.query('SET SESSION wsrep_sync_wait = 1');
          return (await connection.query(sql, parameters))[0] as T[];
        },
        database,
      ),
    kill: (index) => signal(nodes[index], 'SIGKILL'),
    restart: (index) => start(nodes[index], false),
    state: (index) => state(nodes[index]),
    stop,
  };
}
