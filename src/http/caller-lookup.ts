import type { FastifyRequest } from 'fastify';
import type { Caller } from '../callers/caller';
import { requestState } from './request-context';

/**
 * Who sends a request, looked up once: the first ask (the throttler's limit
 * and tracker, or AccessGuard on a route that skips every throttler) starts
 * the lookup, and every later ask of the same request gets the same answer.
 * A port, bound by the auth module, so that the rate limits never ask auth.
 */
export abstract class CallerLookup {
  find(request: FastifyRequest): Promise<Caller> {
    const state = requestState(request);
    state.identifying ??= this.identify(request).then((caller) => (state.caller = caller));
    return state.identifying;
  }

  /** The caller of a request not asked about before: its key's, or anonymous with its address. */
  protected abstract identify(request: FastifyRequest): Promise<Caller>;
}
