import { Injectable, Logger } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { CheckOutcome, CheckState, READINESS_CHECKS, ReadinessCheck, runReadinessChecks } from './readiness';

/** Short enough for a probe with a few seconds' timeout to get an answer. */
export const READINESS_TIMEOUT_MS = 2_000;

@Injectable()
export class ReadinessService {
  private readonly logger = new Logger('Readiness');
  private checks?: ReadinessCheck[];
  private readonly lastState = new Map<string, CheckState>();

  constructor(private readonly discovery: DiscoveryService) {}

  async check(): Promise<CheckOutcome[]> {
    const outcomes = await runReadinessChecks(this.registeredChecks(), READINESS_TIMEOUT_MS);
    outcomes.forEach((outcome) => this.logChange(outcome));
    return outcomes;
  }

  private registeredChecks(): ReadinessCheck[] {
    this.checks ??= this.discovery
      .getProviders()
      .filter((wrapper) => wrapper.token === READINESS_CHECKS && wrapper.isDependencyTreeStatic())
      .flatMap((wrapper) => wrapper.instance as ReadinessCheck | ReadinessCheck[]);
    return this.checks;
  }

  /** Probes poll every few seconds: log when a dependency goes down or comes back, not on every poll. */
  private logChange({ name, state, reason }: CheckOutcome): void {
    const previous = this.lastState.get(name) ?? 'up';
    this.lastState.set(name, state);
    if (state === previous) return;
    if (state === 'up') this.logger.log(`${name} is up again`);
    else this.logger.warn(`${name} is ${state}: ${reason}`);
  }
}
