import { Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { ReadinessCheck } from '../ops/readiness';
import { nodeFailoverOf, stopNodeFailover } from './failover';

/** What `/readyz` shows of each database node. */
export const NODE_READINESS = Symbol('NODE_READINESS');

/**
 * What the HTTP service adds to the failover of a DATABASE_URL of several
 * nodes: `/readyz` reports each node by name (`in-use`, `up` or `down`); a
 * lost node's failures are answered 503 as any unavailable database's are
 * (driver-errors.ts). Whether the service is ready
 * stays the `database` check's to say.
 */
@Module({
  providers: [
    {
      provide: NODE_READINESS,
      inject: [AppConfig],
      useFactory: (config: AppConfig): ReadinessCheck[] => {
        const failover = nodeFailoverOf(config.databaseUrl)?.failover;
        return (failover?.statuses() ?? []).map(({ name }, position) => ({
          name,
          check: async () => failover!.statuses()[position].state,
        }));
      },
    },
  ],
  exports: [NODE_READINESS],
})
export class FailoverModule implements OnApplicationShutdown {
  constructor(@Inject(AppConfig) private readonly config: AppConfig) {}

  async onApplicationShutdown(): Promise<void> {
    await stopNodeFailover(this.config.databaseUrl);
  }
}
