import type { FastifyReply } from 'fastify';
import { RateLimitDecision } from '../domain/rate-limit-store';
import { secondsUntil } from '../domain/rate-limit-windows';
import { policyNameOf } from './route-bucket';

/**
 * The one place that writes the rate-limit headers: the specification's
 * `X-RateLimit-*` for the binding window, and the IETF httpapi
 * `RateLimit-Policy` and `RateLimit` structured fields for every window.
 * `Retry-After` only on a refusal: a peek that refuses nothing may judge a full quota.
 */
export function writeRateLimitHeaders(reply: FastifyReply, decision: RateLimitDecision, refused = !decision.allowed): void {
  const { binding } = decision;
  reply.header('X-RateLimit-Limit', binding.limit);
  reply.header('X-RateLimit-Remaining', Math.max(0, binding.remaining));
  reply.header('X-RateLimit-Reset', Math.ceil(binding.resetAtMs / 1000));
  reply.header('RateLimit-Policy', rateLimitPolicyField(decision));
  reply.header('RateLimit', rateLimitField(decision));
  if (refused) reply.header('Retry-After', decision.retryAfterSeconds);
}

/** `"minute";q=60;w=60, "day";q=1000;w=86400`: each window's quota and length in seconds. */
export function rateLimitPolicyField({ windows }: RateLimitDecision): string {
  let field = '';
  for (const window of windows) {
    field += `${field ? ', ' : ''}"${policyNameOf(window.name)}";q=${window.limit};w=${Math.ceil(window.durationMs / 1000)}`;
  }
  return field;
}

/**
 * `"minute";r=59;t=60, "day";r=999;t=86400`: each window's requests left and
 * seconds to its reset, rounded up as Retry-After is, so that a refused
 * request's `t` of a full window is its Retry-After.
 */
export function rateLimitField({ windows, atMs }: RateLimitDecision): string {
  let field = '';
  for (const window of windows) {
    field += `${field ? ', ' : ''}"${policyNameOf(window.name)}";r=${Math.max(0, window.remaining)};t=${secondsUntil(window.resetAtMs, atMs)}`;
  }
  return field;
}
