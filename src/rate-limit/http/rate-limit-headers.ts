import type { FastifyReply } from 'fastify';
import { RateLimitDecision } from '../domain/rate-limit-store';

/**
 * The one place that writes the specification's rate-limit headers. Names are
 * given lower-cased, as Fastify stores and sends them (header names are
 * case-insensitive), so setting one costs no toLowerCase.
 */
export function writeRateLimitHeaders(reply: FastifyReply, decision: RateLimitDecision): void {
  const { binding } = decision;
  reply.header('x-ratelimit-limit', binding.limit);
  reply.header('x-ratelimit-remaining', Math.max(0, binding.remaining));
  reply.header('x-ratelimit-reset', Math.ceil(binding.resetAtMs / 1000));
  if (!decision.allowed) reply.header('retry-after', decision.retryAfterSeconds);
}
