import type { FastifyRequest } from 'fastify';

/**
 * Told how each @ConditionalGet() request was answered, before its answer
 * goes: the rate limits put off the count of a request that may be a 304, and
 * settle it here (a 304 is free). Provided by the rate-limit module.
 */
export abstract class ConditionalAnswers {
  /** Whether the request's answer must be settled: only one the rate limits put a count off for. */
  abstract awaits(request: FastifyRequest): boolean;

  /** Resolves when the answer may go; a rejection (the 429) is answered in its place. */
  abstract settle(request: FastifyRequest, notModified: boolean): Promise<void>;
}
