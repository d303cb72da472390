import type { FastifyReply } from 'fastify';
import { RateLimitDecision } from '../domain/rate-limit-store';

/** The one place that writes the specification's rate-limit headers. */
export function writeRateLimitHeaders(reply: FastifyReply, decision: RateLimitDecision): void {
  const { binding } = decision;
  reply.header('X-RateLimit-Limit', binding.limit);
  reply.header('X-RateLimit-Remaining', Math.max(0, binding.remaining));
  reply.header('X-RateLimit-Reset', Math.ceil(binding.resetAtMs / 1000));
  if (!decision.allowed) reply.header('Retry-After', decision.retryAfterSeconds);
}
