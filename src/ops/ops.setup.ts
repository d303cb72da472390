import { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import { Logger } from 'nestjs-pino';
import type { Logger as PinoInstance } from 'pino';
import { AppConfig } from '../config/app-config';
import { errorBody } from '../errors/error-code';
import { errorCodeSentOn } from '../errors/sent-error-code';
import { logRequest, ROOT_LOGGER } from './logging';
import { OpsMetrics } from './metrics';
import { RequestDrain } from './request-drain';
import { REQUEST_ID_HEADER } from './request-id';
import { corsOptionsFor, securityHeaders } from './security';

/**
 * What operators rely on, wired into the HTTP server: logs through pino,
 * security headers, CORS, request metrics, and a 503 for requests that
 * arrive while the server drains at shutdown.
 */
export function configureOperations(app: NestFastifyApplication): void {
  const config = app.get(AppConfig);
  const metrics = app.get(OpsMetrics);
  const drain = app.get(RequestDrain);
  const rootLogger = app.get<symbol, PinoInstance>(ROOT_LOGGER);
  app.useLogger(app.get(Logger));
  // Lower-cased once here, as Fastify stores and sends header names, so that no request lower-cases twelve of them.
  const security = securityHeaders().map(([name, value]) => [name.toLowerCase(), value] as const);
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onRequest', (_request, reply, done) => {
      // On Fastify's reply, like every other header: as long as nothing calls the Node response's
      // setHeader, Node writes all of them in one pass instead of re-setting each one at writeHead.
      for (const [name, value] of security) reply.header(name, value);
      done();
    });
  const cors = corsOptionsFor(config.corsOrigins);
  if (cors) app.enableCors(cors);

  // In a plugin, so it runs after the security headers hook and a 503 answered here still carries them;
  // skip-override keeps the hooks on the root instance, as fastify-plugin would.
  const requestHooks = async (fastify: FastifyInstance) => {
    fastify.addHook('preClose', (done) => {
      void drain.drain(0);
      done();
    });
    fastify.addHook('onRequest', (request, reply, done) => {
      reply.header(REQUEST_ID_HEADER, request.id);
      if (drain.admit()) {
        reply.raw.once('close', () => drain.release());
        return done();
      }
      reply.code(503).header('Connection', 'close').send(errorBody('service_unavailable', 'The service is shutting down'));
    });
    fastify.addHook('onResponse', (request, reply, done) => {
      logRequest(rootLogger, request, reply.statusCode, reply.elapsedTime);
      metrics.observeRequest({
        method: request.method,
        route: request.routeOptions.url,
        status: reply.statusCode,
        durationSeconds: reply.elapsedTime / 1000,
        errorCode: errorCodeSentOn(reply),
      });
      done();
    });
  };
  void app.register(Object.assign(requestHooks, { [Symbol.for('skip-override')]: true }));
}
