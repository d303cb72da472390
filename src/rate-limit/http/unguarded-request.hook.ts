import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify';
import { CallerLookup } from '../../auth/application/caller-lookup';
import { ErrorBody, errorBody, MESSAGE_BY_CODE } from '../../errors/error-code';
import { noteErrorCode } from '../../errors/sent-error-code';
import { isApiRequest } from '../../http/api-route';
import { requestContext } from '../../http/request-context';
import { planWindows, RateLimiter } from '../application/rate-limiter';
import { rejectionFor } from '../domain/rate-limit.errors';
import { writeRateLimitHeaders } from './rate-limit-headers';
import { banSubjectOf, limitsOf, trackerOf } from './rate-limited-caller';

/**
 * Some `/v1` requests are answered before any guard runs: unknown routes,
 * bodies Fastify refuses (413, 415, malformed JSON). This hook counts each of
 * them against its caller's plan as the guard would have, writes the headers,
 * and turns the answer into a 429 when the caller is over its limit. Call it
 * from configureApp.
 */
export function registerUnguardedRequestLimits(app: NestFastifyApplication): void {
  const limiter = app.get(RateLimiter);
  const callers = app.get(CallerLookup);
  const logger = new Logger('RateLimit');

  const count = async (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    const windows = planWindows(await limitsOf(request, callers));
    const decision = await limiter.consume(await trackerOf(request, callers), windows, await banSubjectOf(request, callers));
    writeRateLimitHeaders(reply, decision);
    const refusal = rejectionFor(decision);
    return refusal ? replaceBody(reply, errorBody(refusal.code, refusal.message)) : payload;
  };

  const onSend: onSendHookHandler = (request, reply, payload, done) => {
    // The guard has seen every routed request, whether it counted it or the route skips limits.
    if (!isApiRequest(request) || requestContext(request).rateLimit) return done(null, payload);
    requestContext(request).rateLimit = { windows: [] };
    count(request, reply, payload).then(
      (body) => done(null, body),
      (error: unknown) => {
        logger.error({ requestId: request.id }, error instanceof Error ? (error.stack ?? error.message) : String(error));
        done(null, replaceBody(reply, errorBody('internal_error', MESSAGE_BY_CODE.internal_error)));
      },
    );
  };
  app.getHttpAdapter().getInstance().addHook('onSend', onSend);
}

function replaceBody(reply: FastifyReply, body: ErrorBody): string {
  noteErrorCode(reply, body.code);
  reply.code(body.status).type('application/json; charset=utf-8');
  return JSON.stringify(body);
}
