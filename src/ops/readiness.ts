import { DomainError } from '../errors/domain/domain-error';
import { SERVICE_UNAVAILABLE } from '../errors/domain/error-code';

/** Something the service needs in order to serve traffic: the database, Redis, ... */
export interface ReadinessCheck {
  readonly name: string;
  /** Set when the service still serves without it (a read replica): failing, it is `degraded`, and the service stays ready. */
  readonly optional?: boolean;
  /** Resolves when the dependency answers; rejects (with any error) when it does not. */
  check(): Promise<void>;
}

/**
 * Multi-provider token: any module may provide one or several checks under it
 * (`{ provide: READINESS_CHECKS, useFactory: (store) => ({ name: 'redis', check: () => store.ping() }), inject: [...] }`),
 * and `/readyz` runs all of them. Nest has no multi-providers, so the readiness
 * service collects every provider registered under this token, in any module.
 */
export const READINESS_CHECKS = Symbol('READINESS_CHECKS');

export type CheckState = 'up' | 'degraded' | 'down';

export interface CheckOutcome {
  readonly name: string;
  readonly state: CheckState;
  /** Why it is down, for the server's log only: it may name hosts or drivers. */
  readonly reason?: string;
}

/** The service cannot serve traffic right now; the message names what is down and nothing else. */
export class ServiceUnavailableError extends DomainError {
  readonly code = SERVICE_UNAVAILABLE;
}

/** Runs every check at once; a check that has not answered within `timeoutMs` counts as down. */
export async function runReadinessChecks(checks: readonly ReadinessCheck[], timeoutMs: number): Promise<CheckOutcome[]> {
  return Promise.all(
    checks.map(async (readiness): Promise<CheckOutcome> => {
      const { name } = readiness;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        await Promise.race([Promise.resolve().then(() => readiness.check()), timeout]);
        return { name, state: 'up' };
      } catch (error) {
        return { name, state: readiness.optional ? 'degraded' : 'down', reason: error instanceof Error ? error.message : String(error) };
      } finally {
        clearTimeout(timer);
      }
    }),
  );
}

/** `Not ready: database, redis are down` — names only, never a reason (which may hold an address). */
export function notReadyMessage(outcomes: readonly CheckOutcome[]): string | undefined {
  const down = outcomes.filter((outcome) => outcome.state === 'down').map((outcome) => outcome.name);
  return down.length ? `Not ready: ${down.join(', ')} ${down.length === 1 ? 'is' : 'are'} down` : undefined;
}
