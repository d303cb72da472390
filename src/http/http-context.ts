import type { ExecutionContext } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * The request and reply of an HTTP execution context, read by position as
 * Nest's own `switchToHttp()` reads them. Guards run on every request, and
 * `switchToHttp()` assigns three new closures to the context at each call.
 */
export function requestOf(context: ExecutionContext): FastifyRequest {
  return context.getArgByIndex<FastifyRequest>(0);
}

export function replyOf(context: ExecutionContext): FastifyReply {
  return context.getArgByIndex<FastifyReply>(1);
}
