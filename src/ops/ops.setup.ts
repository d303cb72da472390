import fastifyHelmet from '@fastify/helmet';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { Logger } from 'nestjs-pino';
import type { Logger as PinoInstance } from 'pino';
import { AppConfig } from '../config/app-config';
import { errorCodeOf, sendError } from '../errors/http/all-exceptions.filter';
import type { Caller } from '../callers/caller';
import { UsageRecorder } from '../usage/application/usage-recorder';
import { logRequest, ROOT_LOGGER } from './logging';
import { ANONYMOUS_PLAN, OpsMetrics, outcomeOf } from './metrics';
import { serveOperationsPort } from './ops-port';
import { shedLoadWhenBehind } from './overload';
import { RequestDrain, ShuttingDownError } from './request-drain';
import { REQUEST_ID_HEADER } from './request-id';
import { corsOptionsFor, HELMET_OPTIONS } from './security';
import { registerServerSpanAnnotations } from './server-span';

/**
 * What operators rely on, wired into the HTTP server: logs through pino,
 * security headers, CORS, request metrics, trace attributes when traces are
 * exported, the operators' own port when OPS_PORT is set, and a 503 for requests that arrive while the server drains at
 * shutdown or while the event loop is behind. Call it before the other
 * plugins are registered, so that their answers carry the security headers
 * and request id too.
 */
export function configureOperations(app: NestFastifyApplication): void {
  const config = app.get(AppConfig);
  const metrics = app.get(OpsMetrics);
  const drain = app.get(RequestDrain);
  const rootLogger = app.get<symbol, PinoInstance>(ROOT_LOGGER);
  const usage = app.get(UsageRecorder);
  app.useLogger(app.get(Logger));
  void app.register(fastifyHelmet, HELMET_OPTIONS);
  // Only with a tracer: without one, requests pay nothing for tracing.
  if (config.tracing) registerServerSpanAnnotations(app.getHttpAdapter().getInstance());
  const cors = corsOptionsFor(config.corsOrigins);
  if (cors) app.enableCors(cors);

  // Registered after helmet, so a 503 answered here still carries the security headers.
  const requestHooks = fastifyPlugin(
    async (instance: FastifyInstance) => {
      instance.addHook('preClose', (done) => {
        void drain.drain(0);
        done();
      });
      instance.addHook('onRequest', (request, reply, done) => {
        reply.header(REQUEST_ID_HEADER, request.id);
        if (drain.admit()) {
          reply.raw.once('close', () => drain.release());
          return done();
        }
        sendError(reply.header('Connection', 'close'), new ShuttingDownError());
      });
      instance.addHook('onResponse', (request, reply, done) => {
        const requests = metrics.requestsTo(request.is404 ? undefined : request.routeOptions.url);
        const status = reply.statusCode;
        const caller = keyCallerOf(request.state?.caller);
        const errorCode = errorCodeOf(reply);
        logRequest(rootLogger, request, requests.route, status, reply.elapsedTime, caller, errorCode);
        requests.observe(request.method, status, reply.elapsedTime / 1000);
        if (request.url.startsWith('/v1')) metrics.countRequest(caller?.plan ?? ANONYMOUS_PLAN, outcomeOf(status, errorCode));
        if (caller) usage.record(caller.keyId, caller.accountId, status);
        done();
      });
    },
    { name: 'animal-store-operations' },
  );
  void app.register(requestHooks);
  serveOperationsPort(app.getHttpAdapter().getInstance(), config);
  // After the request hooks, so a refusal carries the request id and is logged and counted like any answer.
  shedLoadWhenBehind(app, config.maxEventLoopDelayMs);
}

/** The caller when a key sent the request; none for an anonymous one or a request refused before it was looked up. */
function keyCallerOf(caller: Caller | undefined) {
  return caller?.kind === 'key' ? caller : undefined;
}

