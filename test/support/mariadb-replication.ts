import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection, createConnection } from 'mysql2/promise';
import { freePort } from './ports';
import { waitFor } from './wait-for';

export const isMariadbServerAvailable = (): boolean => process.env.MARIADB_SERVER_AVAILABLE === '1';

/** A MariaDB primary and its replica on loopback, in processes and directories the spec owns. */
export interface LocalReplication {
  /** `mysql://root@127.0.0.1:<port>/<database>` of each server; root, no password (grant tables are skipped). */
  readonly primaryUrl: string;
  readonly replicaUrl: string;
  /** Runs SQL on one server, in the spec's database. */
  query<T = Record<string, unknown>>(server: 'primary' | 'replica', sql: string, parameters?: unknown[]): Promise<T[]>;
  /** Resolves once the replica has applied everything the primary has written. */
  caughtUp(): Promise<void>;
  /** SIGKILL to the replica, as a crash. */
  killReplica(): Promise<void>;
  /** Starts the replica again on its data directory; it resumes replicating by itself. */
  restartReplica(): Promise<void>;
  /** Stops both servers by pid and removes their directories. */
  stop(): Promise<void>;
}

interface Server {
  readonly name: 'primary' | 'replica';
  readonly port: number;
  readonly dataDir: string;
  readonly args: string[];
  process?: ChildProcess;
}

function connect(port: number, database?: string): Promise<Connection> {
  return createConnection({ host: '127.0.0.1', port, user: 'root', database, connectTimeout: 2_000 });
}

async function onServer<T>(port: number, use: (connection: Connection) => Promise<T>, database?: string): Promise<T> {
  const connection = await connect(port, database);
  try {
    return await use(connection);
  } finally {
    await connection.end();
  }
}

/**
 * Starts a primary (binlog on) and a replica (read-only) of it, each a
 * `mariadbd` with its own data directory and port, detached in a process
 * group of its own; the replica follows the primary by GTID. `database` is
 * created on the primary and reaches the replica by replication.
 */
export async function startReplication(database: string): Promise<LocalReplication> {
  // A spec creates and drops whole databases: never anything whose name lacks "test".
  if (!database.includes('test')) throw new Error(`Refusing to use database ${database}`);
  const root = mkdtempSync(join(tmpdir(), 'animal-store-replication-'));
  const primaryPort = await freePort();
  const servers: Record<'primary' | 'replica', Server> = {
    primary: { name: 'primary', port: primaryPort, dataDir: join(root, 'primary'), args: ['--server-id=1', '--log-bin=bin', '--binlog-format=ROW'] },
    replica: { name: 'replica', port: await freePort({ taken: new Set([primaryPort]) }), dataDir: join(root, 'replica'), args: ['--server-id=2', '--read-only=1'] },
  };
  const errorLog = (server: Server) => {
    try {
      return readFileSync(`${server.dataDir}.err`, 'utf8').split('\n').slice(-20).join('\n');
    } catch {
      return '(no error log)';
    }
  };
  const start = async (server: Server): Promise<void> => {
    const args = [
      '--no-defaults',
      `--datadir=${server.dataDir}`,
      `--port=${server.port}`,
      `--socket=${server.dataDir}.sock`,
      `--pid-file=${server.dataDir}.pid`,
      `--log-error=${server.dataDir}.err`,
      '--user=root',
      '--bind-address=127.0.0.1',
      '--skip-grant-tables',
      '--innodb-buffer-pool-size=32M',
      ...server.args,
    ];
    server.process = spawn('mariadbd', args, { detached: true, stdio: 'ignore' });
    server.process.unref();
    const exited = once(server.process, 'exit').then(() => {
      throw new Error(`mariadbd (${server.name}) exited while starting:\n${errorLog(server)}`);
    });
    await Promise.race([waitFor(() => onServer(server.port, async () => true), `the ${server.name} on port ${server.port}`), exited]);
    exited.catch(() => undefined);
  };
  const stopServer = async (server: Server, signal: NodeJS.Signals): Promise<void> => {
    const child = server.process;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    process.kill(child.pid as number, signal);
    await exited;
  };
  const stop = async (): Promise<void> => {
    await Promise.all([stopServer(servers.replica, 'SIGTERM'), stopServer(servers.primary, 'SIGTERM')]);
    rmSync(root, { recursive: true, force: true });
  };

  try {
    for (const server of Object.values(servers)) {
      const install = spawnSync('mariadb-install-db', ['--no-defaults', `--datadir=${server.dataDir}`, '--user=root', '--skip-test-db'], {
        stdio: 'pipe',
        timeout: 60_000,
      });
      if (install.status !== 0) throw new Error(`mariadb-install-db failed: ${install.error?.message ?? install.stderr.toString()}`);
    }
    await Promise.all([start(servers.primary), start(servers.replica)]);
    await onServer(servers.replica.port, async (replica) => {
      await replica.query(`CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=${servers.primary.port}, MASTER_USER='root', MASTER_USE_GTID=slave_pos`);
      await replica.query('START SLAVE');
    });
    await onServer(servers.primary.port, (primary) => primary.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`));
    await waitFor(
      () => onServer(servers.replica.port, async (replica) => ((await replica.query('SHOW DATABASES')) as unknown as [Array<{ Database: string }>])[0].some((row) => row.Database === database)),
      'the database to reach the replica',
    );
  } catch (error) {
    await stop();
    throw error;
  }

  const url = (server: Server) => `mysql://root@127.0.0.1:${server.port}/${database}`;
  const replication: LocalReplication = {
    primaryUrl: url(servers.primary),
    replicaUrl: url(servers.replica),
    query: <T>(server: 'primary' | 'replica', sql: string, parameters: unknown[] = []) =>
      onServer(servers[server].port, async (connection) => (await connection.query(sql, parameters))[0] as T[], database),
    caughtUp: async () => {
      const [{ position }] = await replication.query<{ position: string }>('primary', 'SELECT @@gtid_binlog_pos AS position');
      const [{ waited }] = await replication.query<{ waited: number }>('replica', 'SELECT MASTER_GTID_WAIT(?, 30) AS waited', [position]);
      if (Number(waited) !== 0) throw new Error(`The replica did not reach ${position} within 30 s`);
    },
    killReplica: () => stopServer(servers.replica, 'SIGKILL'),
    restartReplica: () => start(servers.replica),
    stop,
  };
  return replication;
}
