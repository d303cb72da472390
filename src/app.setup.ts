import { VersioningType } from '@nestjs/common';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { IncomingMessage } from 'node:http';
import { AppConfig } from './config/app-config';
import { setupApiDocs } from './docs/api-docs';
import {
  answerClientError,
  answerFrameworkError,
  refuseRepeatedHost,
  refuseRequestWithoutHost,
  refuseUnmetExpectation,
  routeExpectations,
  trackResponsesDue,
} from './errors/http/client-error.handler';
import { MAX_PARAM_LENGTH } from './errors/http/request-errors';
import { registerJsonBodyParser } from './http/json-body';
import { configureOperations } from './ops/ops.setup';
import { requestIdFor } from './ops/request-id';

/** How often, at most, the server looks for connections past HEADERS_TIMEOUT_MS or REQUEST_TIMEOUT_MS. */
const EXPIRY_CHECK_MS = 1_000;

/** The Fastify instance's options: body limit, proxy trust and the bounds on slow clients come from configuration. */
export function createFastifyAdapter(config: AppConfig): FastifyAdapter {
  const adapter = new FastifyAdapter({
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy && [...config.trustProxy],
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    genReqId: (request: IncomingMessage) => requestIdFor(request.headers['x-request-id']),
    // Requests arriving while the server drains get the Error body from configureOperations instead.
    return503OnClosing: false,
    // Hooks do what middleware would, so @fastify/middie is left out and a module calling consumer.apply() fails at start-up.
    skipMiddie: true,
    // Requests refused before any route runs still get the Error body.
    clientErrorHandler: answerClientError,
    frameworkErrors: answerFrameworkError,
    // Node alone holds a slow client for a minute or more, and Fastify turns the request bound off: these close it sooner.
    requestTimeout: config.requestTimeoutMs,
    http: {
      requireHostHeader: false,
      headersTimeout: config.headersTimeoutMs,
      // Node looks for expired requests every 30 s by default, which would hold a slow client long past its bound.
      connectionsCheckingInterval: Math.min(EXPIRY_CHECK_MS, config.headersTimeoutMs),
    },
  });
  trackResponsesDue(adapter.getInstance().server);
  // After the request hooks, so the answer carries the security headers and request id like any other.
  adapter.getInstance().addHook('preParsing', refuseRequestWithoutHost);
  adapter.getInstance().addHook('preParsing', refuseRepeatedHost);
  routeExpectations(adapter.getInstance().server);
  adapter.getInstance().addHook('preParsing', refuseUnmetExpectation);
  return adapter;
}

/** Options for NestFactory.create: the JSON parser is ours (see registerJsonBodyParser). */
export const NEST_APP_OPTIONS = { bodyParser: false, bufferLogs: true } as const;

/**
 * Everything the running service needs beyond its modules. main.ts and the
 * end-to-end specs both call it, so the tests exercise exactly what ships.
 */
export function configureApp(app: NestFastifyApplication): NestFastifyApplication {
  // First: the hooks of its plugins reach only the plugins registered after them, the API docs' static files included.
  configureOperations(app);
  registerJsonBodyParser(app.getHttpAdapter().getInstance());
  app.enableVersioning({ type: VersioningType.URI });
  setupApiDocs(app);
  return app;
}
