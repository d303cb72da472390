import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from './domain-error';

/**
 * Some requests fail before any guard runs: unknown routes, bodies Fastify
 * refuses (413, 415, malformed JSON). A module that must see every request
 * (rate limiting) provides this hook; the filter calls it before answering such
 * an error, and answers with the error it returns instead, if any.
 */
export const UNROUTED_REQUEST_HOOK = Symbol('UNROUTED_REQUEST_HOOK');

export interface UnroutedRequestHook {
  beforeErrorReply(request: FastifyRequest, reply: FastifyReply): Promise<DomainError | undefined>;
}
