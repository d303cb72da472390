import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Inject, Logger, Optional } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { types } from 'node:util';
import { DomainError } from './domain-error';
import { ErrorBody, errorBody, ErrorCode } from './error-code';
import { noteErrorCode } from './sent-error-code';
import { UNROUTED_REQUEST_HOOK, UnroutedRequestHook } from './unrouted-request.hook';

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'validation_failed',
  401: 'unauthorized',
  404: 'not_found',
  405: 'not_found',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  503: 'service_unavailable',
};

export const MESSAGE_BY_CODE: Record<ErrorCode, string> = {
  validation_failed: 'Request is invalid',
  unauthorized: 'A valid API key is required: send Authorization: Bearer <key>',
  not_found: 'Resource not found',
  payload_too_large: 'Request body is too large',
  unsupported_media_type: 'Content-Type must be application/json',
  rate_limited: 'Rate limit exceeded; retry after the time given in Retry-After',
  api_key_banned: 'API key temporarily banned for ignoring rate limits; retry after the time given in Retry-After',
  internal_error: 'Internal server error',
  service_unavailable: 'Service unavailable',
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

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Optional() @Inject(UNROUTED_REQUEST_HOOK) private readonly unroutedHook?: UnroutedRequestHook,
  ) {}

  async catch(exception: unknown, host: ArgumentsHost): Promise<void> {
    const http = host.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const request = http.getRequest<FastifyRequest>();
    // What the client is told and what is logged are the same error: the hook's, when it replaced this one.
    const replacement = await this.unroutedHook?.beforeErrorReply(request, reply).catch((error: unknown) => error);
    const cause = replacement ?? exception;
    const body = this.toErrorBody(cause);
    if (body.status >= 500 && body.code !== 'service_unavailable') {
      // The request id ties the stack to the request's own log line. isNativeError, not instanceof: a
      // driver's native code may throw errors made in another V8 context (better-sqlite3 under jest's).
      this.logger.error({ requestId: request.id }, types.isNativeError(cause) ? (cause.stack ?? cause.message) : String(cause));
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
