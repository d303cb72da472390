import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { types } from 'node:util';
import { DomainError } from './domain-error';
import { ErrorBody, errorBody, ErrorCode, MESSAGE_BY_CODE } from './error-code';
import { noteErrorCode } from './sent-error-code';

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'validation_failed',
  401: 'unauthorized',
  // Static files refuse a path that leaves their folder with 403; to a client that path does not exist.
  403: 'not_found',
  404: 'not_found',
  405: 'not_found',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  503: 'service_unavailable',
};

interface FrameworkError {
  statusCode?: unknown;
}

/**
 * Every error leaves as `{code, message, status}`: ours (DomainError), NestJS's
 * (HttpException), Fastify's (parser and routing errors) and the unexpected,
 * which is logged here and never described to the client. Headers already set
 * on the reply (rate limits, deprecation) are kept.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const request = http.getRequest<FastifyRequest>();
    const body = this.toErrorBody(exception);
    if (body.status >= 500 && body.code !== 'service_unavailable') {
      // The request id ties the stack to the request's own log line. isNativeError, not instanceof: a
      // driver's native code may throw errors made in another V8 context (better-sqlite3 under jest's).
      this.logger.error({ requestId: request.id }, types.isNativeError(exception) ? (exception.stack ?? exception.message) : String(exception));
    }
    noteErrorCode(reply, body.code);
    this.adapterHost.httpAdapter.reply(reply, body, body.status);
  }

  toErrorBody(exception: unknown): ErrorBody {
    if (exception instanceof DomainError) return errorBody(exception.code, exception.message);
    const status = statusOf(exception);
    const code = status === undefined ? 'internal_error' : (CODE_BY_STATUS[status] ?? 'internal_error');
    return errorBody(code, code === 'validation_failed' ? badRequestMessage(exception) : MESSAGE_BY_CODE[code]);
  }
}

function statusOf(exception: unknown): number | undefined {
  if (exception instanceof HttpException) return exception.getStatus();
  const status = (exception as FrameworkError | null)?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 600 ? status : undefined;
}

/** NestJS and Fastify word their 400s for clients ("Body is not valid JSON ..."); ours are DomainErrors. */
function badRequestMessage(exception: unknown): string {
  return exception instanceof HttpException ? exception.message : MESSAGE_BY_CODE.validation_failed;
}
