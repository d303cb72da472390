import type { OnApplicationShutdown } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { SystemClock } from '../config/clock';
import { connectBounded, DatabaseBounds } from './database-bounds';
import { createDataSourceOptions } from './database-options';
import { describeFailure, unavailableOr } from './driver-errors';
import { ReplicaLogger, ReplicaMonitor } from './replica-monitor';

/** Which server answered a read. */
export type ReadTarget = 'primary' | 'replica';

/** The rows of a read and the server that answered it. */
export interface ReadResult<T> {
  readonly rows: T[];
  readonly servedBy: ReadTarget;
}

/** Opens a DataSource whose TypeORM replication holds only the replicas at these positions of DATABASE_REPLICA_URLS. */
export type ReplicaSubsetOpener = (positions: readonly number[]) => Promise<DataSource>;

interface Route {
  readonly target: ReadTarget;
  readonly source: DataSource;
  /** Set when the route owns a DataSource of its own, to be closed once no read uses it. */
  readonly owned?: boolean;
}

/**
 * Where reads on the primary go: on MySQL a pool of their own against the
 * same server, which writes stalled on a lock never take (docs/adr/0054),
 * each connection had within the acquire bound. SQLite has one connection,
 * which reads share with writes.
 */
export class PrimaryReads implements OnApplicationShutdown {
  constructor(
    readonly source: DataSource,
    /** Set when the reads have a DataSource of their own, which closes with the app. */
    private readonly owned = false,
  ) {}

  /** The reads' own pool on MySQL, with the app's entities, so a repository may read there too; the app's DataSource on SQLite. */
  static async open(app: DataSource, databaseUrl: string, bounds: DatabaseBounds): Promise<PrimaryReads> {
    if (app.options.type !== 'mysql') return new PrimaryReads(app);
    const source = await new DataSource(createDataSourceOptions(databaseUrl, app.options.entities, [], bounds)).initialize();
    return new PrimaryReads(source, true);
  }

  /** Runs `work` on a connection of the reads' pool; a database that cannot serve it is a DatabaseUnavailableError. */
  async read<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const runner = this.source.createQueryRunner('master');
    try {
      await connectBounded(runner);
      return await work(runner.manager);
    } catch (error) {
      throw unavailableOr(error);
    } finally {
      await runner.release();
    }
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.owned && this.source.isInitialized) await this.source.destroy();
  }
}

/** Long enough for any read that took the old route to finish before its pool closes. */
const RETIRE_AFTER_MS = 30_000;

/**
 * Reads that may run on a replica. With replicas configured, the app's
 * DataSource holds them in TypeORM's `replication` option and a read takes a
 * 'slave' query runner, whose replica TypeORM's pool cluster picks in turn. The
 * monitor decides which replicas are fit: while all are, reads use that
 * DataSource; while only some are, a DataSource of the same options with just
 * those replicas; while none is, the primary. A read that fails on a replica
 * (one that died since the last check) runs again on the primary, so the
 * caller never sees the failure; the log does, once per route, since every read
 * on that route fails alike until the monitor's next check takes it out.
 */
export class DatabaseReads {
  private readonly primary: Route;
  private route: Route;
  private readonly retiring = new Set<NodeJS.Timeout>();
  private readonly retired = new Set<DataSource>();
  /** The routes whose failed reads the log has heard of already. */
  private readonly failedRoutes = new WeakSet<Route>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly monitor: ReplicaMonitor,
    private readonly count: (servedBy: ReadTarget) => void,
    private readonly openSubset: ReplicaSubsetOpener,
    private readonly logger: ReplicaLogger,
    private readonly primaryReads = new PrimaryReads(dataSource),
  ) {
    this.primary = { target: 'primary', source: dataSource };
    this.route = this.primary;
    monitor.onChange(() => this.reroute());
  }

  /** The rows of `sql`: from a replica in service when `prefer` is replica and there is one, else from the primary. */
  async query<T>(sql: string, parameters: unknown[], prefer: ReadTarget): Promise<ReadResult<T>> {
    const route = prefer === 'replica' ? this.route : this.primary;
    if (route.target === 'replica') {
      const runner = route.source.createQueryRunner('slave');
      try {
        const rows: T[] = await runner.query(sql, parameters);
        this.count('replica');
        return { rows, servedBy: 'replica' };
      } catch (error) {
        // The monitor takes the replica out at its next check; this read is answered by the primary meanwhile.
        this.noteFailedRead(route, error);
      } finally {
        await runner.release();
      }
    }
    const rows = await this.primaryReads.read((manager): Promise<T[]> => manager.query(sql, parameters));
    this.count('primary');
    return { rows, servedBy: 'primary' };
  }

  /** Closes the DataSources of replica subsets; the app's own DataSource is TypeORM's module's to close. */
  async close(): Promise<void> {
    this.retiring.forEach(clearTimeout);
    if (this.route.owned) this.retired.add(this.route.source);
    this.route = this.primary;
    await Promise.all([...this.retired].map((source) => this.destroy(source)));
  }

  private noteFailedRead(route: Route, error: unknown): void {
    if (this.failedRoutes.has(route)) return;
    this.failedRoutes.add(route);
    this.logger.warn(`A read on a replica failed and was answered by the primary: ${describeFailure(error)}`);
  }

  /** A pool that fails to close is left to the process's end; the log says so. */
  private async destroy(source: DataSource): Promise<void> {
    try {
      await source.destroy();
    } catch (error) {
      this.logger.warn(`Closing the pool of a replica subset failed: ${describeFailure(error)}`);
    }
  }

  private async reroute(): Promise<void> {
    const fit = this.monitor.inService();
    const previous = this.route;
    if (fit.length === 0) this.route = this.primary;
    else if (fit.length === this.monitor.size) this.route = { target: 'replica', source: this.dataSource };
    else {
      // Until the subset's DataSource is open, reads stay on the primary rather than on a replica just found unfit.
      this.route = this.primary;
      this.route = { target: 'replica', source: await this.openSubset(fit), owned: true };
    }
    if (previous.owned) this.retire(previous.source);
  }

  private retire(source: DataSource): void {
    this.retired.add(source);
    const timer = setTimeout(() => {
      this.retiring.delete(timer);
      this.retired.delete(source);
      void this.destroy(source);
    }, RETIRE_AFTER_MS);
    timer.unref();
    this.retiring.add(timer);
  }
}

/** Reads on the primary alone, as with no replicas configured: for tools and specs that build a repository by hand. */
export function primaryReads(dataSource: DataSource, count: (servedBy: ReadTarget) => void = () => undefined): DatabaseReads {
  // With no replica, neither the monitor nor the reads ever has anything to say.
  const silent = { log: () => undefined, warn: () => undefined };
  const noReplicas = new ReplicaMonitor([], 1, new SystemClock(), silent);
  return new DatabaseReads(dataSource, noReplicas, count, () => Promise.reject(new Error('no replicas are configured')), silent);
}
