import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Caller, KeyCaller } from './caller';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set once per request by the authentication guard; read it through callerOf(), which refuses to answer before then. */
    caller: Caller | null;
  }
}

/**
 * Gives every request these fields from its start, empty, through Fastify's
 * decorateRequest, so that requests keep one shape however many steps fill
 * them in. A module calls it for the fields it keeps on requests; without an
 * HTTP server (a module compiled alone) there is nothing to declare.
 */
export function declareRequestFields(adapterHost: HttpAdapterHost, ...names: (keyof FastifyRequest)[]): void {
  const fastify = adapterHost.httpAdapter?.getInstance<FastifyInstance>();
  for (const name of names) fastify?.decorateRequest(name, null);
}

/** Called once per request, by the authentication step. */
export function setCaller(request: FastifyRequest, caller: Caller): void {
  request.caller = caller;
}

/** The caller of a request; every step after authentication may ask. */
export function callerOf(request: FastifyRequest): Caller {
  const caller = request.caller;
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
