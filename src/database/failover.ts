import { Logger } from '@nestjs/common';
import { context } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import type { RowDataPacket } from 'mysql2';
import { createConnection } from 'mysql2/promise';
import { Socket } from 'node:net';
import { DatabaseNode, parseMultiHostUrl } from '../config/app-config';

/** How often every node is asked whether it can take statements. */
export const NODE_CHECK_INTERVAL_MS = 1_000;

/** A node that has not answered within this is down. */
export const NODE_PROBE_TIMEOUT_MS = 2_000;

/** In use: the node every statement goes to. Up: fit to take over. Down: not answering, or not a synced member of the cluster. */
export type NodeState = 'in-use' | 'up' | 'down';

export interface NodeStatus {
  /** `database-1`, `database-2`, ... in the order of DATABASE_URL: never the address. */
  readonly name: string;
  readonly state: NodeState;
  /** Why it is down, for the server's log only: it may name a host. */
  readonly reason?: string;
}

/**
 * Why a node is asked: `take`, to be taken into use (it applies every write
 * the cluster has committed first); `keep`, it is in use; `watch`, it is not.
 */
export type ProbePurpose = 'take' | 'keep' | 'watch';

/** Resolves when the node is fit for the purpose; rejects with the reason when it is not. */
export type NodeProbe = (node: DatabaseNode, purpose: ProbePurpose) => Promise<void>;

/** What the failover says when a node is lost or taken into use; Nest's Logger fits. */
export interface FailoverLogger {
  warn(message: string): void;
  log(message: string): void;
}

/** Raised to the driver, and so to the request, when no node of DATABASE_URL can take statements. */
export class NoDatabaseNodeError extends Error {
  readonly code = 'DATABASE_NODES_UNAVAILABLE';
  /** mysql2 marks errors that end a connection as fatal; this one ends it before it starts. */
  readonly fatal = true;

  constructor(count: number) {
    super(`None of the ${count} database nodes can take statements`);
  }
}

/** The nodes to try when the one at `from` is lost: each after it in DATABASE_URL's order, wrapping round, and itself last; from the first when none was in use. */
export function failoverOrder(count: number, from: number | undefined): number[] {
  const start = from === undefined ? 0 : from + 1;
  return Array.from({ length: count }, (_, step) => (start + step) % count);
}

type StatusRow = { Variable_name: string; Value: string };

/**
 * Why a Galera node must not take statements, read from `SHOW GLOBAL STATUS`;
 * undefined when it is a ready, Synced member of the primary component. A node
 * in use that donates a state transfer to a joiner (mariabackup's, which
 * blocks nothing) stays in use: moving would cost a failover for nothing.
 */
export function galeraUnfitness(rows: readonly StatusRow[], purpose: ProbePurpose): string | undefined {
  const status = new Map(rows.map((row) => [row.Variable_name.toLowerCase(), row.Value]));
  const state = status.get('wsrep_local_state_comment') ?? 'unknown state';
  if (status.get('wsrep_cluster_status') !== 'Primary') return `not in the primary component (${status.get('wsrep_cluster_status') ?? 'unknown'})`;
  if (status.get('wsrep_ready') !== 'ON') return 'wsrep_ready is not ON';
  if (state === 'Synced' || (purpose === 'keep' && state === 'Donor/Desynced')) return undefined;
  return `${state}, not Synced`;
}

function withTimeout<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Asks a node over a connection of its own, apart from the pool. A server
 * without Galera (`wsrep_on` absent or OFF) is fit while it answers; a Galera
 * node must be Synced. Before a node is taken, `wsrep_sync_wait` makes one
 * read wait until it has applied every write set the cluster committed, so the
 * first statements on a node just taken into use see every acknowledged write.
 */
export function mysqlNodeProbe(user: string, password: string): NodeProbe {
  return (node, purpose) =>
    // Probes repeat every second in the background: they are left out of traces, which follow requests.
    context.with(suppressTracing(context.active()), async () => {
      const connection = await createConnection({ host: node.host, port: node.port, user, password, connectTimeout: NODE_PROBE_TIMEOUT_MS });
      // A node that hangs is dropped, so a probe never holds a connection beyond its bound.
      const hung = setTimeout(() => connection.destroy(), NODE_PROBE_TIMEOUT_MS);
      try {
        const [variables] = await connection.query<Array<StatusRow & RowDataPacket>>("SHOW GLOBAL VARIABLES LIKE 'wsrep_on'");
        if (variables[0]?.Value !== 'ON') return;
        const [status] = await connection.query<Array<StatusRow & RowDataPacket>>(
          "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_cluster_status', 'wsrep_ready', 'wsrep_local_state_comment')",
        );
        const unfit = galeraUnfitness(status, purpose);
        if (unfit) throw new Error(unfit);
        if (purpose !== 'take') return;
        await connection.query('SET SESSION wsrep_sync_wait = 1');
        await connection.query('SELECT 1');
      } finally {
        clearTimeout(hung);
        await connection.end().catch(() => connection.destroy());
      }
    });
}

interface Verdict {
  up: boolean;
  reason?: string;
}

/** The part of mysql2's connection options its `stream` factory is given. */
interface StreamOptions {
  readonly config: { readonly host?: string; readonly port?: number; readonly keepAliveInitialDelay?: number };
}

/**
 * Sequential failover over the nodes of a DATABASE_URL: every connection of
 * the pool goes to one node, the one in use, until it is lost; then to the
 * next fit node in the URL's order, which stays in use after the lost one
 * comes back, so writes go through one node at a time (docs/adr/0039).
 * mysql2 is given `stream`, which returns a socket that connects once the node
 * is known. A connect that fails, a node that stops answering or leaves the
 * synced state, loses it: its sockets are closed, so no statement goes on
 * there, and the next node is probed and taken.
 */
export class NodeFailover {
  private inUse?: number;
  private lastInUse?: number;
  private choosing?: Promise<number>;
  private readonly verdicts: Verdict[];
  private readonly sockets = new Map<Socket, number>();
  private timer?: NodeJS.Timeout;
  private checking?: Promise<void>;
  private stopped = false;

  constructor(
    readonly nodes: readonly DatabaseNode[],
    private readonly probe: NodeProbe,
    private readonly logger: FailoverLogger,
  ) {
    this.verdicts = nodes.map(() => ({ up: false, reason: 'not checked yet' }));
  }

  /** mysql2's `stream` option: a socket to the node in use, or straight to its own address for a pool of another server (a read replica). */
  readonly stream = ({ config }: StreamOptions): Socket => {
    const socket = new Socket();
    socket.setNoDelay(true);
    socket.once('connect', () => socket.setKeepAlive(true, config.keepAliveInitialDelay));
    if (!this.nodes.some(({ host, port }) => host === config.host && port === Number(config.port))) {
      return socket.connect(Number(config.port), config.host ?? 'localhost');
    }
    this.start();
    this.nodeInUse().then(
      (index) => this.connect(socket, index),
      (error: Error) => socket.destroy(error),
    );
    return socket;
  };

  statuses(): NodeStatus[] {
    return this.verdicts.map(({ up, reason }, index) => ({
      name: nodeName(index),
      ...(index === this.inUse ? { state: 'in-use' } : up ? { state: 'up' } : { state: 'down', reason }),
    }));
  }

  /** The node statements go to; chosen first when none is, one choice at a time. */
  nodeInUse(): Promise<number> {
    if (this.inUse !== undefined) return Promise.resolve(this.inUse);
    this.choosing ??= this.choose().finally(() => (this.choosing = undefined));
    return this.choosing;
  }

  /** Checks every node once, then every second, in the background; the first connection starts it. */
  start(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => void this.check(), NODE_CHECK_INTERVAL_MS);
    this.timer.unref();
    void this.check();
  }

  /** A check runs alone: one that is due while another runs joins it. */
  check(): Promise<void> {
    this.checking ??= this.checkAll().finally(() => (this.checking = undefined));
    return this.checking;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.checking;
  }

  private async choose(): Promise<number> {
    for (const index of failoverOrder(this.nodes.length, this.lastInUse)) {
      try {
        await withTimeout(this.probe(this.nodes[index], 'take'), NODE_PROBE_TIMEOUT_MS);
      } catch (error) {
        this.record(index, { up: false, reason: (error as Error).message });
        continue;
      }
      this.record(index, { up: true });
      this.inUse = index;
      this.lastInUse = index;
      this.logger.log(`${nodeName(index)} is in use`);
      return index;
    }
    throw new NoDatabaseNodeError(this.nodes.length);
  }

  private connect(socket: Socket, index: number): void {
    if (socket.destroyed) return;
    if (this.inUse !== index) {
      // The node was lost while this connection waited for it: wait for the next one.
      this.nodeInUse().then(
        (next) => this.connect(socket, next),
        (error: Error) => socket.destroy(error),
      );
      return;
    }
    const { host, port } = this.nodes[index];
    let connected = false;
    this.sockets.set(socket, index);
    socket.once('connect', () => (connected = true));
    socket.once('error', (error) => {
      if (!connected) this.lose(index, error.message);
    });
    socket.once('close', () => {
      this.sockets.delete(socket);
      // A connection that ends may be the node going away: ask it now rather than at the next check.
      if (connected && !this.stopped) void this.check();
    });
    socket.connect(port, host);
  }

  /** Leaves the node: its connections close, so no statement carries on there, and the next one is chosen. */
  private lose(index: number, reason: string): void {
    this.record(index, { up: false, reason });
    if (this.inUse !== index) return;
    this.inUse = undefined;
    this.logger.warn(`${nodeName(index)} is lost (${reason}); moving to the next node`);
    for (const [socket, node] of this.sockets) if (node === index) socket.destroy();
    if (!this.stopped) this.nodeInUse().catch((error: Error) => this.logger.warn(error.message));
  }

  private async checkAll(): Promise<void> {
    await Promise.all(
      this.nodes.map(async (node, index) => {
        try {
          await withTimeout(this.probe(node, index === this.inUse ? 'keep' : 'watch'), NODE_PROBE_TIMEOUT_MS);
          this.record(index, { up: true });
        } catch (error) {
          this.lose(index, (error as Error).message);
        }
      }),
    );
  }

  /** Logs a node going down or coming back, not every check. */
  private record(index: number, verdict: Verdict): void {
    const previous = this.verdicts[index];
    this.verdicts[index] = verdict;
    if (verdict.up && !previous.up && previous.reason !== 'not checked yet') this.logger.log(`${nodeName(index)} is up again`);
    if (!verdict.up && (previous.up || previous.reason === 'not checked yet')) this.logger.warn(`${nodeName(index)} is down: ${verdict.reason}`);
  }
}

function nodeName(index: number): string {
  return `database-${index + 1}`;
}

const failovers = new Map<string, NodeFailover>();

/**
 * The failover of a DATABASE_URL that names several nodes; undefined for one
 * of one host. One per URL in the process, shared by every DataSource made
 * from it (the app's, the read-replica subsets'), so they all use one node and
 * `/readyz` reports the one they use.
 */
export function nodeFailoverOf(databaseUrl: string): { failover: NodeFailover; firstNodeUrl: string } | undefined {
  const key = databaseUrl.replace(/^mariadb:/, 'mysql:');
  const parsed = parseMultiHostUrl(key);
  if (!parsed) return undefined;
  let failover = failovers.get(key);
  if (!failover) {
    const { username, password } = new URL(parsed.firstNodeUrl);
    failover = new NodeFailover(parsed.nodes, mysqlNodeProbe(decodeURIComponent(username), decodeURIComponent(password)), new Logger('Database'));
    failovers.set(key, failover);
  }
  return { failover, firstNodeUrl: parsed.firstNodeUrl };
}

/** Stops the failover of a DATABASE_URL, when the app that used it closes. */
export async function stopNodeFailover(databaseUrl: string): Promise<void> {
  const key = databaseUrl.replace(/^mariadb:/, 'mysql:');
  const failover = failovers.get(key);
  failovers.delete(key);
  await failover?.stop();
}
