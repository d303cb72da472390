import { DomainError } from '../errors/domain/domain-error';
import { SERVICE_UNAVAILABLE } from '../errors/domain/error-code';

/** Something the service needs in order to serve traffic: Redis, a replica, ... */
export interface ReadinessCheck {
  readonly name: string;
  /** Set when the service still serves without it (a read replica): failing, it is `degraded`, and the service stays ready. */
  readonly optional?: boolean;
  /** Resolves when the dependency answers; rejects (with any error) when it does not. A check that reports rather than gates (a database node) resolves with what `/readyz` shows for it. */
  check(): Promise<void | string>;
}

/** The service cannot serve traffic right now; the message names what is down and nothing else. */
export class ServiceUnavailableError extends DomainError {
  readonly code = SERVICE_UNAVAILABLE;
}
