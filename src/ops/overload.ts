import type { FastifyUnderPressureOptions } from '@fastify/under-pressure';
import { ServiceUnavailableError } from './readiness';

/** What a caller refused for overload is asked to wait: a few of the plugin's one-second samples of the event loop. */
export const OVERLOAD_RETRY_AFTER_SECONDS = 5;

export class OverloadedError extends ServiceUnavailableError {
  constructor() {
    super('The service is overloaded; retry after the time given in Retry-After');
  }
}

/**
 * The route config (`@RouteConfig(SERVED_UNDER_PRESSURE)`) of a route that
 * answers even while the service sheds load: a pressure handler that returns
 * nothing lets the request through.
 */
export const SERVED_UNDER_PRESSURE = { pressureHandler: (): void => undefined };

/**
 * @fastify/under-pressure's options: while the event loop's mean delay is
 * over `maxEventLoopDelayMs`, requests are answered 503 with Retry-After at
 * once, through the global filter, rather than queued behind the work already
 * late. The request pipeline registers the plugin unless the bound is 0.
 */
export function underPressureOptions(maxEventLoopDelayMs: number): FastifyUnderPressureOptions {
  return {
    maxEventLoopDelay: maxEventLoopDelayMs,
    retryAfter: OVERLOAD_RETRY_AFTER_SECONDS,
    customError: OverloadedError,
  };
}
