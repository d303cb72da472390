import { createServer } from 'node:net';
import { resolve, sep } from 'node:path';
import { type AppConfig } from '../config/app-config';

/**
 * What the environment can do to a start (a database that refuses, a port in
 * use, a store path that cannot be made), each said in one line that names the
 * variable and the fix. Every entry point prints these instead of a stack
 * trace; an error this file does not know stays a stack trace, as a bug should.
 */

/** What a driver, the file system or the socket layer attach to their errors. */
interface SystemError {
  code?: unknown;
  syscall?: unknown;
  address?: unknown;
  port?: unknown;
  hostname?: unknown;
  path?: unknown;
}

/** The part of the configuration a start-up line may name. */
export type StartupSettings = Pick<AppConfig, 'databaseUrl' | 'host' | 'port'>;

/** Errors that may pass once the database has started: the server tries again before it gives up. */
const TRANSIENT = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ER_CON_COUNT_ERROR', 'ER_SERVER_SHUTDOWN', 'PROTOCOL_CONNECTION_LOST']);

const SQLITE_OPEN_CODES = new Set(['ENOENT', 'EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'EEXIST', 'SQLITE_CANTOPEN', 'SQLITE_READONLY', 'SQLITE_PERM']);

function systemErrorOf(error: unknown): SystemError {
  return typeof error === 'object' && error !== null ? (error as SystemError) : {};
}

function codeOf(error: unknown): string | undefined {
  const { code } = systemErrorOf(error);
  return typeof code === 'string' ? code : undefined;
}

/** Whether a failed connection to the database may succeed if tried again shortly (the server not up yet). */
export function isTransientDatabaseFailure(error: unknown): boolean {
  const code = codeOf(error);
  return code !== undefined && TRANSIENT.has(code);
}

/** The server, database and user a MySQL URL names, never its password. */
function mysqlTarget(databaseUrl: string, error: SystemError): { address: string; database: string; user: string } {
  const url = new URL(databaseUrl);
  // A refused connection names the very address tried.
  const address = typeof error.address === 'string' && error.port ? `${error.address}:${error.port}` : `${url.hostname}:${url.port || 3306}`;
  return { address, database: decodeURIComponent(url.pathname.slice(1)), user: decodeURIComponent(url.username) };
}

function sqlitePath(databaseUrl: string): string {
  return databaseUrl.slice('sqlite:'.length);
}

const FILE_PROBLEMS: Readonly<Record<string, string>> = {
  ENOENT: 'a folder on its path cannot be made',
  ENOTDIR: 'a part of its path is a file, not a folder',
  EEXIST: 'a part of its path is a file, not a folder',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  SQLITE_READONLY: 'the file is read-only',
  SQLITE_PERM: 'permission denied',
  SQLITE_CANTOPEN: 'SQLite cannot open the file there',
};

/** Whether a file system error is about the SQLite store's own path (one of its folders or the file), not another file such as a backup. */
function isAboutStore(error: SystemError, storePath: string): boolean {
  if (typeof error.path !== 'string') return String(error.code).startsWith('SQLITE_');
  const store = resolve(storePath);
  return store === resolve(error.path) || store.startsWith(`${resolve(error.path)}${sep}`);
}

/** The one line for a failure to open the store DATABASE_URL names; undefined when the failure is not one configuration explains. */
export function describeDatabaseFailure(error: unknown, databaseUrl: string): string | undefined {
  const code = codeOf(error);
  if (code === undefined) return undefined;
  if (databaseUrl.startsWith('sqlite:')) {
    if (!SQLITE_OPEN_CODES.has(code) || !isAboutStore(systemErrorOf(error), sqlitePath(databaseUrl))) return undefined;
    return `DATABASE_URL: cannot make the SQLite store ${sqlitePath(databaseUrl)} (${FILE_PROBLEMS[code]}); set DATABASE_URL to sqlite:<path> in a folder this user may write, such as sqlite:./data/animal-store.db`;
  }
  const { address, database, user } = mysqlTarget(databaseUrl, systemErrorOf(error));
  switch (code) {
    case 'ECONNREFUSED':
      return `DATABASE_URL: nothing accepts connections at ${address} (connection refused); start MySQL or MariaDB there, or correct the host and port in DATABASE_URL`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `DATABASE_URL: the host of ${address} does not resolve; correct the host in DATABASE_URL`;
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `DATABASE_URL: ${address} does not answer (${code}); check the host and port in DATABASE_URL and that a firewall lets this machine reach it`;
    case 'ER_BAD_DB_ERROR':
      return `DATABASE_URL: the database "${database}" does not exist on ${address}; it must be created first: CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4;`;
    case 'ER_ACCESS_DENIED_ERROR':
    case 'ER_DBACCESS_DENIED_ERROR':
    case 'ER_NOT_SUPPORTED_AUTH_MODE':
      return `DATABASE_URL: ${address} refused the login of user "${user}" to database "${database}" (${code}); correct the user and password in DATABASE_URL, or grant the user that database`;
    case 'ER_CON_COUNT_ERROR':
      return `DATABASE_URL: ${address} has too many connections; raise its max_connections or stop other clients`;
    default:
      return undefined;
  }
}

/** The one line for a listen that failed; undefined when the failure is not one configuration explains. */
function describeListenFailure(error: unknown, { host, port }: StartupSettings): string | undefined {
  switch (codeOf(error)) {
    case 'EADDRINUSE':
      return `PORT: ${host}:${port} is already in use by another process; stop it, or set PORT to a free port`;
    case 'EACCES':
      return `PORT: this user may not listen on port ${port}; set PORT to 1024 or above, or grant the process that right`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `HOST: "${host}" does not resolve to an address; set HOST to an address of this machine, such as 0.0.0.0 (every interface) or 127.0.0.1`;
    case 'EADDRNOTAVAIL':
      return `HOST: ${host} is not an address of this machine; set HOST to one of its addresses, such as 0.0.0.0 (every interface) or 127.0.0.1`;
    default:
      return undefined;
  }
}

/**
 * The one line for a start that failed on its environment, naming the variable
 * and the fix; undefined for anything else. A failed listen names HOST or PORT,
 * a failed open of the store DATABASE_URL.
 */
export function describeStartupFailure(error: unknown, settings: StartupSettings): string | undefined {
  const { syscall } = systemErrorOf(error);
  if (syscall === 'listen' || syscall === 'bind') return describeListenFailure(error, settings);
  // Fastify resolves HOST before it listens: a name that does not resolve fails on getaddrinfo, with that name.
  if (syscall === 'getaddrinfo' && systemErrorOf(error).hostname === settings.host) return describeListenFailure(error, settings);
  return describeDatabaseFailure(error, settings.databaseUrl);
}

/**
 * Listens on HOST and PORT for a moment and lets go, so that a port in use or
 * a host that does not resolve is said before the app is built; the service's
 * own listen, later, fails the same way should the port be taken meanwhile.
 */
export async function checkListenAddress(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen({ host, port, exclusive: true }, resolve);
  });
  await new Promise((resolve) => probe.close(resolve));
}
