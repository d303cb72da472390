/** How a replica's replication goes, as `SHOW REPLICA STATUS` reports it. */
export interface ReplicationReport {
  /** Both threads run: the one that receives the primary's binlog and the one that applies it. */
  readonly running: boolean;
  /** How far the applied data is behind the primary; null while replication does not run. */
  readonly secondsBehind: number | null;
}

type StatusRow = Record<string, unknown>;

/** MariaDB (and MySQL before 8.0.22) name the columns Slave_* and *_Master; MySQL 8 names them Replica_* and *_Source. */
function column(row: StatusRow, ...names: string[]): unknown {
  const name = names.find((candidate) => candidate in row);
  return name === undefined ? undefined : row[name];
}

/** The report in the rows of `SHOW REPLICA STATUS`; a server that returns none is not replicating at all. */
export function readReplicationReport(rows: readonly StatusRow[]): ReplicationReport {
  const [row] = rows;
  if (!row) throw new Error('it is not a replica (SHOW REPLICA STATUS is empty)');
  const io = column(row, 'Replica_IO_Running', 'Slave_IO_Running');
  const sql = column(row, 'Replica_SQL_Running', 'Slave_SQL_Running');
  const behind = column(row, 'Seconds_Behind_Source', 'Seconds_Behind_Master');
  return {
    running: io === 'Yes' && sql === 'Yes',
    secondsBehind: behind === null || behind === undefined ? null : Number(behind),
  };
}

/** In service: it serves reads. Lagging or down: it is out of reads until it recovers. */
export type ReplicaState = 'in-service' | 'lagging' | 'down';

export interface ReplicaVerdict {
  readonly state: ReplicaState;
  /** Why it is out, for the server's log only: it may name a host. */
  readonly reason?: string;
}

/**
 * Judges one replica from its successive reports. While replication runs, its
 * lag is what the replica reports. When replication stops, the replica reports
 * no lag at all, yet its data ages: it counts as lagging by its last reported
 * lag plus the time since it stopped, so it leaves reads once that passes the
 * bound. A replica never seen replicating (since the start, or since it was
 * down) has no known lag and stays out until it reports one.
 */
export class ReplicaHealth {
  private lastLagSeconds?: number;
  private stoppedSinceMs?: number;

  constructor(private readonly maxLagSeconds: number) {}

  judge(report: ReplicationReport | Error, nowMs: number): ReplicaVerdict {
    if (report instanceof Error) {
      this.lastLagSeconds = undefined;
      this.stoppedSinceMs = undefined;
      return { state: 'down', reason: report.message };
    }
    let lagSeconds: number;
    if (report.running && report.secondsBehind !== null) {
      lagSeconds = report.secondsBehind;
      this.lastLagSeconds = lagSeconds;
      this.stoppedSinceMs = undefined;
    } else {
      if (this.lastLagSeconds === undefined) return { state: 'lagging', reason: 'replication is not running and its lag is unknown' };
      this.stoppedSinceMs ??= nowMs;
      lagSeconds = this.lastLagSeconds + (nowMs - this.stoppedSinceMs) / 1000;
    }
    if (lagSeconds <= this.maxLagSeconds) return { state: 'in-service' };
    const stopped = report.running ? '' : ' (replication stopped)';
    return { state: 'lagging', reason: `${Math.floor(lagSeconds)} s behind the primary${stopped}, over the bound of ${this.maxLagSeconds} s` };
  }
}
