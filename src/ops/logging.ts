import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';
import { DestinationStream, stdTimeFunctions } from 'pino';
import type { Options } from 'pino-http';
import { AppConfig } from '../config/app-config';
import { UNMATCHED_ROUTE } from './metrics';

/** Where log lines go: stdout in the service, a buffer in specs that read them. */
export const LOG_DESTINATION = Symbol('LOG_DESTINATION');

/**
 * Request logs carry chosen fields only (never headers or bodies); these paths
 * are censored as well, in case a log call ever passes a request, a key or a body.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'authorization',
  'cookie',
  'apiKey',
  'key',
  'keyHash',
  'hash',
  'body',
  'req.body',
  '*.apiKey',
  '*.key',
  '*.keyHash',
  '*.hash',
  '*.body',
];

const routes = new WeakMap<IncomingMessage, string>();

/** The route template a request matched, known to the router only; the request log reads it. */
export function rememberRoute(request: IncomingMessage, route: string | undefined): void {
  routes.set(request, route ?? UNMATCHED_ROUTE);
}

function requestFields(request: IncomingMessage, response: ServerResponse, durationMs: number) {
  return {
    method: request.method,
    route: routes.get(request) ?? UNMATCHED_ROUTE,
    status: response.statusCode,
    durationMs,
  };
}

/**
 * pino-http: one line per finished request, `requestId` bound to every line
 * logged while it runs. The id is Fastify's request id (see createFastifyAdapter).
 */
export function createLoggerParams(config: AppConfig, destination: DestinationStream): Params {
  const options: Options = {
    level: config.logLevel,
    timestamp: stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    customAttributeKeys: { reqId: 'requestId' },
    quietReqLogger: true,
    quietResLogger: true,
    customLogLevel: (_request, response, error) => (error || response.statusCode >= 500 ? 'error' : 'info'),
    customSuccessObject: (request, response, { responseTime }) => requestFields(request, response, responseTime),
    customErrorObject: (request, response, _error, { responseTime }) => requestFields(request, response, responseTime),
    customSuccessMessage: () => 'request completed',
    customErrorMessage: () => 'request failed',
  };
  return { pinoHttp: [options, destination] };
}
