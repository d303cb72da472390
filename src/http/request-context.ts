import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { Caller, KeyCaller } from './caller';

/** The facts about one request that more than one step needs, kept in one typed place for the life of the request. */
interface RequestContext {
  caller?: Caller;
}

// Keyed weakly by the request, so a context lives exactly as long as its request.
const contexts = new WeakMap<FastifyRequest, RequestContext>();

/** Called once per request, by the authentication step. */
export function setCaller(request: FastifyRequest, caller: Caller): void {
  const context = contexts.get(request);
  if (context) context.caller = caller;
  else contexts.set(request, { caller });
}

/** The caller of a request; every step after authentication may ask. */
export function callerOf(request: FastifyRequest): Caller {
  const caller = contexts.get(request)?.caller;
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
