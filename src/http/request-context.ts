import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { Caller, KeyCaller } from '../callers/caller';

/**
 * What the steps of a request learn about it and leave for the steps after
 * them: the one typed place for request state. Each field names the step that
 * fills it in.
 */
export class RequestState {
  /** The caller's lookup, started by the first ask (CallerLookup). */
  identifying: Promise<Caller> | undefined = undefined;
  /** The caller, once the lookup resolved. */
  caller: Caller | undefined = undefined;
  /** A count the rate limits put off for a possible 304, paid when the @ConditionalGet() route tells how it answered (ConditionalAnswers). */
  deferredCharge: (() => Promise<void>) | undefined = undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Read and written through requestState(); declared once by the request pipeline, so every request keeps one shape. */
    state: RequestState | null;
  }
}

/** The name the request pipeline declares on every request, empty. */
export const REQUEST_STATE_FIELD = 'state';

/** The request's state, empty at its first ask. */
export function requestState(request: FastifyRequest): RequestState {
  return (request.state ??= new RequestState());
}

/** The caller of a request; every step after the guards may ask. */
export function callerOf(request: FastifyRequest): Caller {
  const caller = request.state?.caller;
  if (!caller) throw new Error('callerOf() asked before the caller was looked up');
  return caller;
}

/**
 * The caller as a handler parameter: `@CurrentCaller() caller: KeyCaller`. On
 * a route that is not @Public() the access guard has let only key callers in.
 */
export const CurrentCaller = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Caller | KeyCaller => callerOf(context.switchToHttp().getRequest<FastifyRequest>()),
);
