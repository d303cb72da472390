import { Inject, Logger, Module, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { Clock } from '../config/clock';
import { OpsMetrics } from '../ops/metrics';
import { ReadinessCheck } from '../ops/readiness';
import { databaseBoundsOf } from './database-bounds';
import { createDataSourceOptions } from './database-options';
import { DatabaseReads, PrimaryReads } from './database-reads';
import { ReplicaMonitor, TypeOrmReplicaProbe } from './replica-monitor';

/** What `/readyz` checks of the replicas: each by name. */
export const REPLICA_READINESS = Symbol('REPLICA_READINESS');

/**
 * Reads that may run on the replicas of DATABASE_REPLICA_URLS, and the
 * monitor that keeps unfit replicas out of them; `/readyz` reports each
 * replica. Apart from DatabaseModule, so the keys command line, which only
 * writes, never starts a monitor.
 */
@Module({
  providers: [
    {
      provide: ReplicaMonitor,
      inject: [AppConfig, Clock],
      useFactory: (config: AppConfig, clock: Clock) => {
        const logger = new Logger('Database');
        return new ReplicaMonitor(
          config.databaseReplicaUrls.map((url, index) => {
            const name = `replica-${index + 1}`;
            return { name, probe: new TypeOrmReplicaProbe(url, name, logger) };
          }),
          config.databaseReplicaMaxLagSeconds,
          clock,
          logger,
        );
      },
    },
    {
      provide: DatabaseReads,
      inject: [DataSource, ReplicaMonitor, OpsMetrics, AppConfig, PrimaryReads],
      useFactory: (dataSource: DataSource, monitor: ReplicaMonitor, metrics: OpsMetrics, config: AppConfig, primaryReads: PrimaryReads) =>
        new DatabaseReads(
          dataSource,
          monitor,
          (servedBy) => metrics.countRead(servedBy),
          (positions) => {
            const replicas = positions.map((position) => config.databaseReplicaUrls[position]);
            return new DataSource(createDataSourceOptions(config.databaseUrl, [], replicas, databaseBoundsOf(config))).initialize();
          },
          new Logger('Database'),
          primaryReads,
        ),
    },
    {
      // Each replica by name, never by address: degraded while it is out of reads, which leaves the service ready.
      provide: REPLICA_READINESS,
      inject: [ReplicaMonitor],
      useFactory: (monitor: ReplicaMonitor): ReadinessCheck[] =>
        monitor.statuses().map(({ name }, position) => ({
          name,
          optional: true,
          check: async () => {
            const { state, reason } = monitor.statuses()[position];
            if (state !== 'in-service') throw new Error(`out of reads, ${state}: ${reason}`);
          },
        })),
    },
  ],
  exports: [DatabaseReads, REPLICA_READINESS],
})
export class ReadReplicasModule implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    @Inject(ReplicaMonitor) private readonly monitor: ReplicaMonitor,
    @Inject(DatabaseReads) private readonly reads: DatabaseReads,
  ) {}

  /** Reads start on the replicas that a first check finds fit. */
  async onApplicationBootstrap(): Promise<void> {
    await this.monitor.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.monitor.stop();
    await this.reads.close();
  }
}
