import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { types } from 'node:util';
import { DomainError, RetryLaterError } from '../domain/domain-error';
import {
  type ErrorCode,
  INTERNAL_ERROR,
  NOT_FOUND,
  PAYLOAD_TOO_LARGE,
  RATE_LIMITED,
  SERVICE_UNAVAILABLE,
  UNAUTHORIZED,
  UNSUPPORTED_MEDIA_TYPE,
  VALIDATION_FAILED,
} from '../domain/error-code';
import { ErrorBody, errorBody } from './error-statuses';
import { UnreadBodyError } from './request-errors';

/** The code of a NestJS or Fastify exception that carries only an HTTP status. */
const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: VALIDATION_FAILED,
  401: UNAUTHORIZED,
  // Static files refuse a path that leaves their folder with 403; to a client that path does not exist.
  403: NOT_FOUND,
  404: NOT_FOUND,
  405: NOT_FOUND,
  413: PAYLOAD_TOO_LARGE,
  415: UNSUPPORTED_MEDIA_TYPE,
  429: RATE_LIMITED,
  503: SERVICE_UNAVAILABLE,
};

interface FrameworkError {
  statusCode?: unknown;
}

/**
 * The one place an error becomes an Error body `{code, message, status}`:
 * ours (DomainError, whose code's status error-statuses.ts gives), NestJS's (HttpException),
 * Fastify's and the unexpected, which is never described to the client.
 */
export function toErrorBody(exception: unknown): ErrorBody {
  if (exception instanceof DomainError) return errorBody(exception.code, exception.message);
  const status = statusOf(exception);
  const code = (status !== undefined && CODE_BY_STATUS[status]) || INTERNAL_ERROR;
  // NestJS words its 400s for clients (a ParseIntPipe's message); everything else gets the code's own message.
  return errorBody(code, code === VALIDATION_FAILED && exception instanceof HttpException ? exception.message : undefined);
}

/**
 * The one writer of the Error body on a reply, for every error of every
 * request that has one: through the filter below, and from the Fastify hooks
 * that answer before routing (see request-pipeline.ts). Headers
 * already set on the reply (rate limits, deprecation, request id) are kept.
 */
export function sendError(reply: FastifyReply, exception: unknown): ErrorBody {
  const body = toErrorBody(exception);
  answeredCodes.set(reply, body.code);
  if (exception instanceof UnreadBodyError) void reply.header('Connection', 'close');
  if (exception instanceof RetryLaterError) void reply.header('Retry-After', exception.retryAfterSeconds);
  void reply.code(body.status).send(body);
  return body;
}

/** The code of each reply answered with the Error body, kept for the reply's lifetime alone. */
const answeredCodes = new WeakMap<FastifyReply, string>();

/** The Error body's code a reply was answered with, for its log line and metrics; undefined for an answer that is no error. */
export function errorCodeOf(reply: FastifyReply): string | undefined {
  return answeredCodes.get(reply);
}

/** Every error a route, guard, pipe or Fastify raises; unexpected ones are logged here with the request id. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const [request, reply] = [http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>()];
    const body = sendError(reply, exception);
    if (body.code === INTERNAL_ERROR) {
      // isNativeError, not instanceof: a driver's native code may throw errors made in another V8 context (better-sqlite3 under jest's).
      const cause = types.isNativeError(exception) ? (exception.stack ?? exception.message) : String(exception);
      this.logger.error({ requestId: request.id }, cause);
    }
  }
}

function statusOf(exception: unknown): number | undefined {
  if (exception instanceof HttpException) return exception.getStatus();
  const status = (exception as FrameworkError | null)?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 600 ? status : undefined;
}
