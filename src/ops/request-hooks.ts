import type { onRequestHookHandler, onResponseHookHandler, preCloseHookHandler } from 'fastify';
import type { Logger as PinoInstance } from 'pino';
import { errorCodeOf, sendError } from '../errors/http/all-exceptions.filter';
import type { Caller } from '../callers/caller';
import { UsageRecorder } from '../usage/application/usage-recorder';
import { logRequest } from './logging';
import { ANONYMOUS_PLAN, OpsMetrics, outcomeOf } from './metrics';
import { RequestDrain, ShuttingDownError } from './request-drain';
import { REQUEST_ID_HEADER } from './request-id';

/**
 * The onRequest hook that answers with the request id, and takes the request
 * on unless the server drains at shutdown: then it answers 503 on a connection
 * that is closed, so the caller knows for sure the request was not processed.
 * A request taken on gives its place back when its response closes.
 */
export function admitRequestHook(drain: RequestDrain): onRequestHookHandler {
  return function admitRequest(request, reply, done) {
    reply.header(REQUEST_ID_HEADER, request.id);
    if (drain.admit()) {
      reply.raw.once('close', () => drain.release());
      return done();
    }
    sendError(reply.header('Connection', 'close'), new ShuttingDownError());
  };
}

/** The preClose hook: from the moment the server starts to close, new requests are refused. */
export function stopAdmittingHook(drain: RequestDrain): preCloseHookHandler {
  return function stopAdmitting(done) {
    void drain.drain(0);
    done();
  };
}

/** What the onResponse hook records each answer in. */
export interface AnswerRecords {
  readonly rootLogger: PinoInstance;
  readonly metrics: OpsMetrics;
  readonly usage: UsageRecorder;
}

/** The onResponse hook: the request's log line and metrics, and the key's usage. */
export function recordAnswerHook({ rootLogger, metrics, usage }: AnswerRecords): onResponseHookHandler {
  return function recordAnswer(request, reply, done) {
    const requests = metrics.requestsTo(request.is404 ? undefined : request.routeOptions.url);
    const status = reply.statusCode;
    const caller = keyCallerOf(request.state?.caller);
    const errorCode = errorCodeOf(reply);
    logRequest(rootLogger, request, requests.route, status, reply.elapsedTime, caller, errorCode);
    requests.observe(request.method, status, reply.elapsedTime / 1000);
    if (request.url.startsWith('/v1')) metrics.countRequest(caller?.plan ?? ANONYMOUS_PLAN, outcomeOf(status, errorCode));
    if (caller) usage.record(caller.keyId, caller.accountId, status);
    done();
  };
}

/** The caller when a key sent the request; none for an anonymous one or a request refused before it was looked up. */
function keyCallerOf(caller: Caller | undefined) {
  return caller?.kind === 'key' ? caller : undefined;
}
