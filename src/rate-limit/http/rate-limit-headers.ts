import type { FastifyReply } from 'fastify';
import type { Verdict } from '../application/rate-limiter';
import type { RateLimitDecision } from '../domain/rate-limit-store';
import { secondsUntil } from '../domain/rate-limit-windows';
import { policyNameOf } from './route-bucket';

/**
 * One member of the `RateLimit-Policy` list: a quota's name and its
 * parameters in order, e.g. `q` and `w`, or the draft's `qu` for a quota
 * counted in other units (`qu="concurrent-requests"`).
 */
export interface PolicyItem {
  readonly name: string;
  readonly params: ReadonlyArray<readonly [key: string, value: number | string]>;
}

/**
 * The one place that writes the rate-limit headers: the specification's
 * `X-RateLimit-*` for the binding window, and the IETF httpapi
 * `RateLimit-Policy` and `RateLimit` structured fields for every window, and
 * the cap of places in flight it was judged against, after them. `Retry-After`
 * only on a refusal: a peek that refuses nothing may judge a full quota.
 */
export function writeRateLimitHeaders(reply: FastifyReply, { decision, refusal }: Verdict, cap?: number): void {
  const { binding } = decision;
  reply.header('X-RateLimit-Limit', binding.limit);
  reply.header('X-RateLimit-Remaining', Math.max(0, binding.remaining));
  reply.header('X-RateLimit-Reset', Math.ceil(binding.resetAtMs / 1000));
  const policies = windowPolicies(decision);
  if (cap !== undefined) policies.push(concurrencyPolicy(cap));
  reply.header('RateLimit-Policy', serializeList(policies));
  reply.header('RateLimit', rateLimitField(decision));
  if (refusal) reply.header('Retry-After', refusal.retryAfterSeconds);
}

/** Each window as a policy, `"minute";q=60;w=60`: its quota `q` and its length `w` in seconds. */
function windowPolicies({ windows }: RateLimitDecision): PolicyItem[] {
  return windows.map((window) => ({
    name: policyNameOf(window.name),
    params: [
      ['q', window.limit],
      ['w', Math.ceil(window.durationMs / 1000)],
    ],
  }));
}

/** The concurrency cap's item of `RateLimit-Policy`: `"concurrency";q=20;qu="concurrent-requests"` (the draft's quota unit). */
function concurrencyPolicy(cap: number): PolicyItem {
  return {
    name: 'concurrency',
    params: [
      ['q', cap],
      ['qu', 'concurrent-requests'],
    ],
  };
}

/**
 * `"minute";r=59;t=60, "day";r=999;t=86400`: each window's requests left and
 * seconds to its reset, rounded up as Retry-After is, so that a refused
 * request's `t` of a full window is its Retry-After.
 */
function rateLimitField({ windows, atMs }: RateLimitDecision): string {
  return serializeList(
    windows.map((window) => ({
      name: policyNameOf(window.name),
      params: [
        ['r', Math.max(0, window.remaining)],
        ['t', secondsUntil(window.resetAtMs, atMs)],
      ],
    })),
  );
}

/** A structured-field List of quoted names with parameters (RFC 9651): integers bare, strings quoted. */
function serializeList(items: readonly PolicyItem[]): string {
  return items.map(({ name, params }) => `"${name}"${params.map(([key, value]) => `;${key}=${typeof value === 'number' ? value : `"${value}"`}`).join('')}`).join(', ');
}
