import type { FastifyReply } from 'fastify';
import { RateLimitDecision } from '../domain/rate-limit-store';
import { secondsUntil } from '../domain/rate-limit-windows';
import { policyNameOf } from './route-bucket';

/**
 * The one place that writes the rate-limit headers: the specification's
 * `X-RateLimit-*` for the binding window, and the IETF httpapi
 * `RateLimit-Policy` and `RateLimit` structured fields for every window. Names
 * are given lower-cased, as Fastify stores and sends them (header names are
 * case-insensitive), so setting one costs no toLowerCase. `Retry-After` only
 * on a refusal: a peek that refuses nothing may judge a full quota.
 */
export function writeRateLimitHeaders(reply: FastifyReply, decision: RateLimitDecision, refused = !decision.allowed): void {
  const { binding } = decision;
  reply.header('x-ratelimit-limit', binding.limit);
  reply.header('x-ratelimit-remaining', Math.max(0, binding.remaining));
  reply.header('x-ratelimit-reset', Math.ceil(binding.resetAtMs / 1000));
  reply.header('ratelimit-policy', rateLimitPolicyField(decision));
  reply.header('ratelimit', rateLimitField(decision));
  if (refused) reply.header('retry-after', decision.retryAfterSeconds);
}

/** `"minute";q=60;w=60, "day";q=1000;w=86400`: each window's quota and length in seconds. */
export function rateLimitPolicyField({ windows }: RateLimitDecision): string {
  let field = '';
  for (const window of windows) {
    field += `${field ? ', ' : ''}"${policyNameOf(window.name)}";q=${window.limit};w=${Math.ceil(window.durationMs / 1000)}`;
  }
  return field;
}

/** The concurrency cap's item of `RateLimit-Policy`: `"concurrency";q=20;qu="concurrent-requests"` (the draft's quota unit). */
export function concurrencyPolicyItem(cap: number): string {
  return `"concurrency";q=${cap};qu="concurrent-requests"`;
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
