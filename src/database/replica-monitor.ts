import { context } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import { DataSource } from 'typeorm';
import type { Clock } from '../config/clock';
import { createDataSourceOptions } from './database-options';
import { describeFailure } from './driver-errors';
import { readReplicationReport, ReplicaHealth, ReplicationReport, ReplicaState, ReplicaVerdict } from './replica-health';

/** How often each replica is asked how far behind it is. */
export const REPLICA_CHECK_INTERVAL_MS = 1_000;

/** A replica that has not answered within this is down. */
export const REPLICA_PROBE_TIMEOUT_MS = 2_000;

/**
 * The most a replica in service can miss of the primary's writes: its lag
 * bound, the second that the reported lag rounds away, and the time until the
 * monitor's next verdict. A read that must see a write younger than this goes
 * to the primary.
 */
export function replicaStalenessBoundMs(maxLagSeconds: number): number {
  return maxLagSeconds * 1000 + 1000 + REPLICA_CHECK_INTERVAL_MS + REPLICA_PROBE_TIMEOUT_MS;
}

/** Asks one replica how its replication goes. */
export interface ReplicaProbe {
  report(): Promise<ReplicationReport>;
  close(): Promise<void>;
}

/** A probe over a DataSource of one connection to the replica, apart from the read pool, so busy reads never delay its answer. */
export class TypeOrmReplicaProbe implements ReplicaProbe {
  private dataSource?: DataSource;
  private pending?: Promise<ReplicationReport>;

  /** `name` stands for the replica in the log, which never sees its address. */
  constructor(
    private readonly url: string,
    private readonly name: string,
    private readonly logger: ReplicaLogger,
  ) {}

  /** One question at a time: a probe still waiting for a hung replica is answered by that same wait. */
  report(): Promise<ReplicationReport> {
    // Probes repeat every second in the background: they are left out of traces, which follow requests.
    this.pending ??= context.with(suppressTracing(context.active()), () => this.ask()).finally(() => (this.pending = undefined));
    return this.pending;
  }

  async close(): Promise<void> {
    const dataSource = this.dataSource;
    this.dataSource = undefined;
    if (!dataSource?.isInitialized) return;
    try {
      await dataSource.destroy();
    } catch (error) {
      // The probe opens a fresh connection next time; the old one is the driver's to drop.
      this.logger.warn(`Closing the probe's connection to ${this.name} failed: ${describeFailure(error)}`);
    }
  }

  private async ask(): Promise<ReplicationReport> {
    try {
      this.dataSource ??= await new DataSource({
        ...createDataSourceOptions(this.url, []),
        extra: { connectionLimit: 1, connectTimeout: REPLICA_PROBE_TIMEOUT_MS },
      }).initialize();
      return readReplicationReport(await this.dataSource.query('SHOW REPLICA STATUS'));
    } catch (error) {
      // Reconnect from scratch next time: the replica may have restarted.
      await this.close();
      throw error;
    }
  }
}

export interface MonitoredReplica {
  /** `replica-1`, `replica-2`, ... in the order of DATABASE_REPLICA_URLS: never the address, which may hold a password. */
  readonly name: string;
  readonly probe: ReplicaProbe;
}

export interface ReplicaStatus {
  readonly name: string;
  readonly state: ReplicaState;
  readonly reason?: string;
}

/** What the monitor says when a replica leaves reads or comes back; Nest's Logger fits. */
export interface ReplicaLogger {
  warn(message: string): void;
  log(message: string): void;
}

interface Watched extends MonitoredReplica {
  readonly health: ReplicaHealth;
  verdict: ReplicaVerdict;
}

function withTimeout<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Asks every replica, every second, whether it replicates and how far behind
 * it is, and keeps each one's verdict. Replicas start out of reads and join
 * once they report a lag within the bound.
 */
export class ReplicaMonitor {
  private readonly replicas: Watched[];
  private readonly listeners: Array<() => Promise<void>> = [];
  private timer?: NodeJS.Timeout;
  private checking?: Promise<void>;

  constructor(
    replicas: readonly MonitoredReplica[],
    maxLagSeconds: number,
    private readonly clock: Clock,
    private readonly logger: ReplicaLogger,
  ) {
    this.replicas = replicas.map((replica) => ({ ...replica, health: new ReplicaHealth(maxLagSeconds), verdict: { state: 'down', reason: 'not checked yet' } }));
  }

  get size(): number {
    return this.replicas.length;
  }

  /** Positions (in DATABASE_REPLICA_URLS) of the replicas that serve reads now. */
  inService(): number[] {
    return this.replicas.flatMap((replica, index) => (replica.verdict.state === 'in-service' ? [index] : []));
  }

  statuses(): ReplicaStatus[] {
    return this.replicas.map(({ name, verdict }) => ({ name, ...verdict }));
  }

  /** Called, and awaited, after a check that changed which replicas serve reads. */
  onChange(listener: () => Promise<void>): void {
    this.listeners.push(listener);
  }

  /** Checks once before returning, so reads start on the replicas that are fit, then every second. */
  async start(): Promise<void> {
    if (this.replicas.length === 0) return;
    await this.check();
    this.timer = setInterval(() => void this.check(), REPLICA_CHECK_INTERVAL_MS);
    this.timer.unref();
  }

  /** A check runs alone: one that is due while another runs joins it. */
  check(): Promise<void> {
    this.checking ??= this.checkAll().finally(() => (this.checking = undefined));
    return this.checking;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.checking;
    await Promise.all(this.replicas.map(({ probe }) => probe.close()));
  }

  private async checkAll(): Promise<void> {
    const before = this.inService().join();
    await Promise.all(
      this.replicas.map(async (replica) => {
        const report = await withTimeout(replica.probe.report(), REPLICA_PROBE_TIMEOUT_MS).catch((error: unknown) =>
          error instanceof Error ? error : new Error(String(error)),
        );
        this.record(replica, replica.health.judge(report, this.clock.now()));
      }),
    );
    if (this.inService().join() === before) return;
    for (const listener of this.listeners) {
      await listener().catch((error: unknown) => this.logger.warn(`Reads stay on the primary: ${error instanceof Error ? error.message : String(error)}`));
    }
  }

  /** Logs a replica leaving or joining reads, or leaving for another reason, not every check. */
  private record(replica: Watched, verdict: ReplicaVerdict): void {
    const previous = replica.verdict;
    replica.verdict = verdict;
    if (verdict.state === 'in-service') {
      if (previous.state !== 'in-service') this.logger.log(`${replica.name} serves reads`);
    } else if (previous.state !== verdict.state || previous.reason === 'not checked yet') {
      this.logger.warn(`${replica.name} is out of reads, ${verdict.state}: ${verdict.reason}`);
    }
  }
}
