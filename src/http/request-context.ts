import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { Caller, KeyCaller } from './caller';

// Keyed weakly by the request, so a caller is kept exactly as long as its request.
const callers = new WeakMap<FastifyRequest, Caller>();

/** Called once per request, by the authentication step. */
export function setCaller(request: FastifyRequest, caller: Caller): void {
  callers.set(request, caller);
}

/** The caller of a request; every step after authentication may ask. */
export function callerOf(request: FastifyRequest): Caller {
  const caller = callers.get(request);
  if (!caller) throw new Error('callerOf() asked before the authentication guard ran');
  return caller;
}

/**
 * The caller as a handler parameter: `@CurrentCaller() caller: KeyCaller`. On
 * a route that is not @Public() the access guard has let only key callers in.
 */
export const CurrentCaller = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Caller | KeyCaller => callerOf(context.switchToHttp().getRequest<FastifyRequest>()),
);
