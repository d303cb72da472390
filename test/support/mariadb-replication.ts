import { LocalMariadb, startMariadb } from './mariadb-server';
import { waitFor } from './wait-for';

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

/**
 * Starts a primary (binlog on) and a replica (read-only) of it, each a
 * `mariadbd` with its own data directory and port, detached in a process
 * group of its own; the replica follows the primary by GTID. `database` is
 * created on the primary and reaches the replica by replication.
 */
export async function startReplication(database: string): Promise<LocalReplication> {
  // A spec creates and drops whole databases: never anything whose name lacks "test".
  if (!database.includes('test')) throw new Error(`Refusing to use database ${database}`);
  const started: LocalMariadb[] = [];
  const stop = async () => {
    await Promise.all(started.map((server) => server.stop()));
  };
  let servers: Record<'primary' | 'replica', LocalMariadb>;
  try {
    const primary = await startMariadb('primary', ['--server-id=1', '--log-bin=bin', '--binlog-format=ROW']);
    started.push(primary);
    const replica = await startMariadb('replica', ['--server-id=2', '--read-only=1'], new Set([primary.port]));
    started.push(replica);
    servers = { primary, replica };
    await replica.query(`CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=${primary.port}, MASTER_USER='root', MASTER_USE_GTID=slave_pos`);
    await replica.query('START SLAVE');
    await primary.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
    await waitFor(
      async () => (await replica.query<{ Database: string }>('SHOW DATABASES')).some((row) => row.Database === database),
      'the database to reach the replica',
    );
  } catch (error) {
    await stop();
    throw error;
  }

  const replication: LocalReplication = {
    primaryUrl: servers.primary.url(database),
    replicaUrl: servers.replica.url(database),
    query: <T>(server: 'primary' | 'replica', sql: string, parameters: unknown[] = []) => servers[server].query<T>(sql, parameters, database),
    caughtUp: async () => {
      const [{ position }] = await replication.query<{ position: string }>('primary', 'SELECT @@gtid_binlog_pos AS position');
      const [{ waited }] = await replication.query<{ waited: number }>('replica', 'SELECT MASTER_GTID_WAIT(?, 30) AS waited', [position]);
      if (Number(waited) !== 0) throw new Error(`The replica did not reach ${position} within 30 s`);
    },
    killReplica: () => servers.replica.kill(),
    restartReplica: () => servers.replica.start(),
    stop,
  };
  return replication;
}
