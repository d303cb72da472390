import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { Caller, KeyCaller } from './caller';

/**
 * What a request owes the rate limits when they put its count off until its
 * answer is known (a 304 owes nothing): it counts the request, writes the
 * rate-limit headers, and rejects with the refusal when the quota has no room.
 */
export type DeferredCharge = () => Promise<void>;

/** The facts about one request that more than one step needs, kept in one typed place for the life of the request. */
interface RequestContext {
  caller?: Caller;
  deferredCharge?: DeferredCharge;
}

// Keyed weakly by the request, so a context lives exactly as long as its request.
const contexts = new WeakMap<FastifyRequest, RequestContext>();

function contextOf(request: FastifyRequest): RequestContext {
  let context = contexts.get(request);
  if (!context) contexts.set(request, (context = {}));
  return context;
}

/** Called once per request, by the authentication step. */
export function setCaller(request: FastifyRequest, caller: Caller): void {
  contextOf(request).caller = caller;
}

/** The caller of a request; every step after authentication may ask. */
export function callerOf(request: FastifyRequest): Caller {
  const caller = contexts.get(request)?.caller;
  if (!caller) throw new Error('callerOf() asked before the authentication guard ran');
  return caller;
}

/** Called by the rate limits when they only peeked at the quota of a request that may be answered 304. */
export function deferCharge(request: FastifyRequest, charge: DeferredCharge): void {
  contextOf(request).deferredCharge = charge;
}

/**
 * The request's deferred charge, if any, handed over once: whoever answers
 * the request with anything but a 304 (the @ConditionalGet() route's hook, the
 * exception filter) pays it, and a 304 drops it.
 */
export function takeDeferredCharge(request: FastifyRequest): DeferredCharge | undefined {
  const context = contexts.get(request);
  const charge = context?.deferredCharge;
  if (charge) context.deferredCharge = undefined;
  return charge;
}

/**
 * The caller as a handler parameter: `@CurrentCaller() caller: KeyCaller`. On
 * a route that is not @Public() the access guard has let only key callers in.
 */
export const CurrentCaller = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Caller | KeyCaller => callerOf(context.switchToHttp().getRequest<FastifyRequest>()),
);
