import type { Params } from 'nestjs-pino';
import { pino, DestinationStream, Logger as PinoInstance, stdTimeFunctions } from 'pino';
import type { PrettyOptions } from 'pino-pretty';
import { AppConfig, AppEnv, LogFormat } from '../config/app-config';

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

/** The process's one pino logger: Nest's own messages and the request lines go through it. */
export const ROOT_LOGGER = Symbol('ROOT_LOGGER');

/**
 * JSON lines for machines unless LOG_FORMAT says otherwise; readable lines
 * only for a developer watching a terminal, since a pipe or a file means
 * another program reads them.
 */
export function chooseLogFormat(format: LogFormat | undefined, appEnv: AppEnv, isTerminal: boolean): LogFormat {
  return format ?? (appEnv === 'development' && isTerminal ? 'pretty' : 'json');
}

export function createRootLogger(config: AppConfig, destination: DestinationStream, isTerminal = process.stdout.isTTY === true): PinoInstance {
  const format = chooseLogFormat(config.logFormat, config.appEnv, isTerminal);
  return pino(
    {
      level: config.logLevel,
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    },
    format === 'pretty' ? prettyStream(destination, isTerminal) : destination,
  );
}

/** The same lines, formatted in this thread (no worker) so they interleave with the process's other output in order; loaded only when used. */
function prettyStream(destination: DestinationStream, colorize: boolean): DestinationStream {
  const pretty = require('pino-pretty') as (options: PrettyOptions) => DestinationStream;
  return pretty({
    destination,
    sync: true,
    colorize,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    messageFormat: '{if context}[{context}] {end}{msg}',
    ignore: 'pid,hostname,context',
  });
}

/**
 * nestjs-pino serves Nest's Logger from the root logger without mounting its
 * per-request middleware, because logRequest writes the one request line from
 * a Fastify hook and needs no child logger or async context per request.
 */
export function createLoggerParams(root: PinoInstance): Params {
  return { pinoHttp: { logger: root }, forRoutes: [] };
}

interface FinishedRequest {
  readonly id: string;
  readonly method: string;
}

/** Who sent a request, as its log line names it: the key's id (never its secret), its account and plan. */
export interface LoggedCaller {
  readonly keyId: number;
  readonly accountId: number;
  readonly plan: string;
}

/**
 * One line per answered request: id, method, route template, status, duration,
 * the key's id, account and plan when a key sent it, and the Error body's code
 * of a refusal; never headers or bodies.
 */
export function logRequest(
  root: PinoInstance,
  request: FinishedRequest,
  route: string,
  status: number,
  elapsedMs: number,
  caller?: LoggedCaller,
  errorCode?: string,
): void {
  const failed = status >= 500;
  const level = failed ? 'error' : 'info';
  if (!root.isLevelEnabled(level)) return;
  root[level](
    {
      requestId: request.id,
      method: request.method,
      route,
      status,
      durationMs: Math.round(elapsedMs),
      ...(caller && { keyId: caller.keyId, accountId: caller.accountId, plan: caller.plan }),
      ...(errorCode !== undefined && { code: errorCode }),
    },
    failed ? 'request failed' : 'request completed',
  );
}
