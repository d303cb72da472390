import { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, onResponseHookHandler } from 'fastify';
import { Logger } from 'nestjs-pino';
import type { Logger as PinoInstance } from 'pino';
import { AppConfig } from '../config/app-config';
import { sendError } from '../errors/all-exceptions.filter';
import { logRequest, ROOT_LOGGER } from './logging';
import { OpsMetrics } from './metrics';
import { ServiceUnavailableError } from './readiness';
import { RouteRequests } from './request-metrics';
import { RequestDrain } from './request-drain';
import { REQUEST_ID_HEADER } from './request-id';
import { corsOptionsFor, securityHeaders } from './security';
import { registerServerSpanAnnotations } from './server-span';

/**
 * What operators rely on, wired into the HTTP server: logs through pino,
 * security headers, CORS, request metrics, trace attributes when traces are
 * exported, and a 503 for requests that
 * arrive while the server drains at shutdown. Call it before any route is
 * registered: each route gets its request line and metrics hook as it is added.
 */
export function configureOperations(app: NestFastifyApplication): void {
  const config = app.get(AppConfig);
  const metrics = app.get(OpsMetrics);
  const drain = app.get(RequestDrain);
  const rootLogger = app.get<symbol, PinoInstance>(ROOT_LOGGER);
  app.useLogger(app.get(Logger));
  const fastify = app.getHttpAdapter().getInstance();
  // Lower-cased once here, as Fastify stores and sends header names, so no request lower-cases them again.
  const security = securityHeaders().map(([name, value]) => [name.toLowerCase(), value] as const);
  fastify.addHook('onRequest', (_request, reply, done) => {
    // Set on Fastify's reply like every other header, so Node writes them all in one pass at writeHead.
    for (const [name, value] of security) reply.header(name, value);
    done();
  });
  // Only with a tracer: without one, requests pay nothing for tracing.
  if (config.tracing) registerServerSpanAnnotations(fastify);
  const cors = corsOptionsFor(config.corsOrigins);
  if (cors) app.enableCors(cors);

  // Each route's own response hook knows its template, without reading `request.routeOptions`, which Fastify builds anew on every read.
  const observe =
    (requests: RouteRequests): onResponseHookHandler =>
    (request, reply, done) => {
      const status = reply.statusCode;
      logRequest(rootLogger, request, requests.route, status, reply.elapsedTime);
      requests.observe(request.method, status, reply.elapsedTime / 1000);
      done();
    };
  fastify.addHook('onRoute', (route) => {
    route.onResponse = [...hooksOf(route.onResponse), observe(metrics.requestsTo(route.url))];
  });
  const observeUnmatched = observe(metrics.requestsTo(undefined));

  // In a plugin, so it runs after the security headers hook and a 503 answered here still carries them;
  // skip-override keeps the hooks on the root instance, as fastify-plugin would.
  const requestHooks = async (instance: FastifyInstance) => {
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
      sendError(reply.header('connection', 'close'), new ServiceUnavailableError('The service is shutting down'));
    });
    instance.addHook('onResponse', function (request, reply, done) {
      if (request.is404) return observeUnmatched.call(this, request, reply, done);
      done();
    });
  };
  void app.register(Object.assign(requestHooks, { [Symbol.for('skip-override')]: true }));
}

/** A route's own hooks as Fastify's onRoute hook hands them over (none, one, or several), as a list to append to. */
function hooksOf<T>(hooks: T | T[] | undefined): T[] {
  return hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];
}
