import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection, createConnection } from 'mysql2/promise';
import { isCi } from './local-services';
import { freePort } from './ports';
import { waitFor } from './wait-for';

export const isMariadbServerAvailable = (): boolean => process.env.MARIADB_SERVER_AVAILABLE === '1';

/** `describe` for a spec that starts a mariadbd of its own: without one, CI fails the run, and elsewhere the spec is skipped loudly. */
export function describeWithMariadbServer(spec: string): jest.Describe {
  if (isMariadbServerAvailable()) return describe;
  if (isCi()) throw new Error(`mariadbd is not installed: CI needs it for the ${spec} spec, failing the run.`);
  process.stderr.write(`\n!!!!!!!! mariadbd not found: the ${spec} spec is SKIPPED. !!!!!!!!\n\n`);
  return describe.skip;
}

/** A `mariadbd` of the spec's own, on a free loopback port, in a process group and a directory the spec owns. */
export interface LocalMariadb {
  readonly name: string;
  readonly port: number;
  /** `mysql://root@127.0.0.1:<port>/<database>`; root, no password (grant tables are skipped). */
  url(database: string): string;
  /** A connection of the spec's own, to hold a lock with; the caller ends it. */
  connect(database?: string): Promise<Connection>;
  /** Runs SQL on a connection of its own, opened and closed for it. */
  query<T = Record<string, unknown>>(sql: string, parameters?: unknown[], database?: string): Promise<T[]>;
  /** SIGKILL, as a crash. */
  kill(): Promise<void>;
  /** Starts it again on its data directory. */
  start(): Promise<void>;
  /** Stops it by its pid and removes its directory. */
  stop(): Promise<void>;
}

/** Installs a fresh data directory and starts `mariadbd` on it, with `args` on top of the loopback defaults. */
export async function startMariadb(name: string, args: readonly string[] = [], taken: ReadonlySet<number> = new Set()): Promise<LocalMariadb> {
  const root = mkdtempSync(join(tmpdir(), `animal-store-${name}-`));
  const dataDir = join(root, 'data');
  const port = await freePort({ taken: new Set(taken) });
  let child: ChildProcess | undefined;

  const errorLog = () => {
    try {
      return readFileSync(`${dataDir}.err`, 'utf8').split('\n').slice(-20).join('\n');
    } catch {
      return '(no error log)';
    }
  };
  const connect = (database?: string) => createConnection({ host: '127.0.0.1', port, user: 'root', database, connectTimeout: 2_000 });
  const query = async <T>(sql: string, parameters: unknown[] = [], database?: string): Promise<T[]> => {
    const connection = await connect(database);
    try {
      return (await connection.query(sql, parameters))[0] as T[];
    } finally {
      await connection.end();
    }
  };
  const start = async (): Promise<void> => {
    const serverArgs = [
      '--no-defaults',
      `--datadir=${dataDir}`,
      `--port=${port}`,
      `--socket=${dataDir}.sock`,
      `--pid-file=${dataDir}.pid`,
      `--log-error=${dataDir}.err`,
      '--user=root',
      '--bind-address=127.0.0.1',
      '--skip-grant-tables',
      '--innodb-buffer-pool-size=32M',
      ...args,
    ];
    child = spawn('mariadbd', serverArgs, { detached: true, stdio: 'ignore' });
    child.unref();
    const exited = once(child, 'exit').then(() => {
      throw new Error(`mariadbd (${name}) exited while starting:\n${errorLog()}`);
    });
    await Promise.race([waitFor(async () => (await query('SELECT 1'), true), `the ${name} on port ${port}`), exited]);
    exited.catch(() => undefined);
  };
  const signal = async (how: NodeJS.Signals): Promise<void> => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    process.kill(child.pid as number, how);
    await exited;
  };

  const install = spawnSync('mariadb-install-db', ['--no-defaults', `--datadir=${dataDir}`, '--user=root', '--skip-test-db'], { stdio: 'pipe', timeout: 60_000 });
  if (install.status !== 0) {
    rmSync(root, { recursive: true, force: true });
    throw new Error(`mariadb-install-db failed: ${install.error?.message ?? install.stderr.toString()}`);
  }
  const server: LocalMariadb = {
    name,
    port,
    url: (database) => `mysql://root@127.0.0.1:${port}/${database}`,
    connect,
    query,
    kill: () => signal('SIGKILL'),
    start,
    stop: async () => {
      await signal('SIGTERM');
      rmSync(root, { recursive: true, force: true });
    },
  };
  try {
    await start();
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}
