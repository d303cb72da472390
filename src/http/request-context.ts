import type { FastifyRequest } from 'fastify';
import type { CallerLookup } from '../auth/application/caller-lookup';
import type { Caller } from '../auth/domain/caller';
import type { WindowSpec } from '../rate-limit/domain/rate-limit-store';

/**
 * What the rate-limit guard learnt of a request while @nestjs/throttler
 * resolved its windows: whom it counts against, and each window the route is
 * limited by (none when the route skips throttling).
 */
export interface RateLimitNote {
  tracker?: string;
  /** The key banned for the request's rejections, when the tracker is its account. */
  banSubject?: string;
  readonly windows: WindowSpec[];
}

/**
 * The facts about one request that more than one guard or hook needs, kept in
 * one typed place for the life of the request.
 */
export interface RequestContext {
  /** The caller behind the Authorization header, looked up once (null: no valid key). */
  caller?: Promise<Caller | null>;
  /** Set when the rate-limit guard has seen the request, so that it is never counted twice. */
  rateLimit?: RateLimitNote;
}

// Keyed weakly by the request, so a context lives exactly as long as its request.
const contexts = new WeakMap<FastifyRequest, RequestContext>();

export function requestContext(request: FastifyRequest): RequestContext {
  let context = contexts.get(request);
  if (context === undefined) {
    context = {};
    contexts.set(request, context);
  }
  return context;
}

/** The caller of a request, looked up on first ask, however many guards and hooks ask. */
export function callerOf(request: FastifyRequest, callers: CallerLookup): Promise<Caller | null> {
  const context = requestContext(request);
  context.caller ??= callers.callerFor(request.headers.authorization);
  return context.caller;
}
