import { Inject, Injectable, Logger, ServiceUnavailableException } from '@nestjs/common';
import {
  type HealthCheckResult,
  HealthCheckService,
  type HealthIndicatorFunction,
  HealthIndicatorService,
  TypeOrmHealthIndicator,
} from '@nestjs/terminus';
import { DataSource } from 'typeorm';
import { ReadinessCheck, ServiceUnavailableError } from './readiness';

/** Short enough for a probe with a few seconds' timeout to get an answer. */
export const READINESS_TIMEOUT_MS = 2_000;

/** Every module's checks, as HealthModule.forRoot lists them. */
export const READINESS_CHECKS = Symbol('READINESS_CHECKS');

/** What `/readyz` answers when the service is ready: each check's state, or what a reporting check shows. */
export interface Readiness {
  readonly status: 'ready';
  readonly checks: Record<string, string>;
}

type CheckState = 'up' | 'degraded' | 'down';

/** The database and every listed check, run by terminus, each within READINESS_TIMEOUT_MS; an optional check that fails is `degraded`. */
@Injectable()
export class ReadinessService {
  private readonly logger = new Logger('Readiness');
  private readonly lastState = new Map<string, CheckState>();
  private readonly indicators: HealthIndicatorFunction[];

  constructor(
    private readonly health: HealthCheckService,
    healthIndicators: HealthIndicatorService,
    database: TypeOrmHealthIndicator,
    dataSource: DataSource,
    @Inject(READINESS_CHECKS) checks: ReadinessCheck[],
  ) {
    this.indicators = [
      () => database.pingCheck('database', { connection: dataSource, timeout: READINESS_TIMEOUT_MS }),
      ...checks.map((readiness): HealthIndicatorFunction => () => {
        const attempt = healthIndicators
          .check(readiness.name)
          .attempt(() => readiness.check())
          .withSuccessData((shown) => (typeof shown === 'string' ? { shown } : {}))
          .withTimeout(READINESS_TIMEOUT_MS);
        return readiness.optional ? attempt.degradedOnFailure() : attempt;
      }),
    ];
  }

  /** Answers the checks' states, or throws ServiceUnavailableError naming what is down, never why (the reason may hold an address). */
  async check(): Promise<Readiness> {
    const result = await this.health.check(this.indicators).catch((error: unknown) => {
      // Terminus refuses with its own body; ours is the Error body, built below from the same result.
      if (error instanceof ServiceUnavailableException) return error.getResponse() as HealthCheckResult;
      throw error;
    });
    const details = Object.entries(result.details);
    details.forEach(([name, detail]) => this.logChange(name, detail.status as CheckState, detail.message));
    if (result.status === 'shutting_down') throw new ServiceUnavailableError('Not ready: shutting down');
    const down = details.filter(([, detail]) => detail.status === 'down').map(([name]) => name);
    if (down.length) throw new ServiceUnavailableError(`Not ready: ${down.join(', ')} ${down.length === 1 ? 'is' : 'are'} down`);
    return { status: 'ready', checks: Object.fromEntries(details.map(([name, detail]) => [name, String(detail.shown ?? detail.status)])) };
  }

  /** Probes poll every few seconds: log when a dependency goes down or comes back, not on every poll. */
  private logChange(name: string, state: CheckState, reason: unknown): void {
    const previous = this.lastState.get(name) ?? 'up';
    this.lastState.set(name, state);
    if (state === previous) return;
    if (state === 'up') this.logger.log(`${name} is up again`);
    else this.logger.warn(`${name} is ${state}: ${String(reason)}`);
  }
}
