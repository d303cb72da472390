import { spawnSync } from 'node:child_process';
import { Socket } from 'node:net';

/**
 * The real MariaDB and Redis of this machine. Specs that need one start it when
 * it is down; under CI=true a server that still cannot be reached fails the run,
 * elsewhere the specs that need it are skipped with a loud warning.
 */
export interface LocalService {
  name: string;
  host: string;
  port: number;
  start: [string, ...string[]];
}

export const MARIADB: LocalService = {
  name: 'MariaDB',
  host: '127.0.0.1',
  port: 3306,
  start: ['start-stop-daemon', '--start', '--oknodo', '--background', '--exec', '/usr/sbin/mariadbd'],
};

export const REDIS: LocalService = {
  name: 'Redis',
  host: '127.0.0.1',
  port: 6379,
  start: ['redis-server', '--daemonize', 'yes', '--bind', '127.0.0.1', '--port', '6379', '--save', '', '--appendonly', 'no'],
};

function canConnect(host: string, port: number, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(port, host, () => done(true));
  });
}

/** Resolves true when the service answers, starting it first if needed. */
export async function ensureLocalService(service: LocalService, waitMs = 30_000): Promise<boolean> {
  if (await canConnect(service.host, service.port)) return true;
  const [command, ...args] = service.start;
  const started = spawnSync(command, args, { stdio: 'pipe', timeout: 15_000 });
  if (started.error || started.status !== 0) {
    process.stderr.write(`Could not start ${service.name}: ${started.error?.message ?? started.stderr.toString().trim()}\n`);
  }
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline) {
    if (await canConnect(service.host, service.port)) return true;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return false;
}

export const isCi = (): boolean => process.env.CI === 'true' || process.env.CI === '1';

/** Sets `<envFlag>=1` when reachable; throws under CI, warns loudly elsewhere. */
export async function requireLocalService(service: LocalService, envFlag: string): Promise<void> {
  const up = await ensureLocalService(service);
  process.env[envFlag] = up ? '1' : '0';
  if (up) return;
  const message = `${service.name} is not reachable on ${service.host}:${service.port}`;
  if (isCi()) throw new Error(`${message}: CI needs it, failing the run.`);
  process.stderr.write(`\n!!!!!!!! ${message}: the specs that need it are SKIPPED. !!!!!!!!\n\n`);
}

/** Sets `<envFlag>=1` when every command runs here; throws under CI, warns loudly elsewhere. */
export function requireCommands(commands: readonly string[], envFlag: string): void {
  const missing = commands.filter((command) => spawnSync(command, ['--version'], { stdio: 'pipe', timeout: 10_000 }).status !== 0);
  process.env[envFlag] = missing.length === 0 ? '1' : '0';
  if (missing.length === 0) return;
  const message = `${missing.join(' and ')} not found on this machine`;
  if (isCi()) throw new Error(`${message}: CI needs it, failing the run.`);
  process.stderr.write(`\n!!!!!!!! ${message}: the specs that need it are SKIPPED. !!!!!!!!\n\n`);
}
