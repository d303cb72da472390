import { ArgumentsHost, HttpException, Logger, NotFoundException } from '@nestjs/common';
import { AllExceptionsFilter, toErrorBody } from './all-exceptions.filter';
import { InvalidInputError, RetryLaterError } from '../domain/domain-error';
import { SERVICE_UNAVAILABLE } from '../domain/error-code';
import { PayloadTooLargeError } from './request-errors';

describe('toErrorBody', () => {
  it('answers a domain error with its code, the status declared for it, and its message', () => {
    expect(toErrorBody(new InvalidInputError('limit must be from 1 to 100'))).toEqual({
      code: 'validation_failed',
      message: 'limit must be from 1 to 100',
      status: 400,
    });
  });

  it("answers NestJS's and Fastify's exceptions by their status, with the code's own message", () => {
    expect(toErrorBody(new NotFoundException('Cannot GET /x'))).toEqual({ code: 'not_found', message: 'Resource not found', status: 404 });
    expect(toErrorBody(new HttpException('Too Many Requests', 429))).toMatchObject({ code: 'rate_limited', status: 429 });
    expect(toErrorBody(Object.assign(new Error('x'), { statusCode: 415 }))).toMatchObject({ code: 'unsupported_media_type', status: 415 });
    expect(toErrorBody(new HttpException('Teapot', 418))).toMatchObject({ code: 'internal_error', status: 500 });
  });
});

describe('AllExceptionsFilter', () => {
  const fakeReply = () => {
    const reply = { header: jest.fn(), code: jest.fn(), send: jest.fn() };
    reply.header.mockReturnValue(reply);
    reply.code.mockReturnValue(reply);
    return reply;
  };
  const hostFor = (reply: object, request: object = {}) =>
    ({ switchToHttp: () => ({ getResponse: () => reply, getRequest: () => request }) }) as unknown as ArgumentsHost;

  it('answers an unexpected error as internal_error and logs its cause with the request id', () => {
    const reply = fakeReply();
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);

    new AllExceptionsFilter().catch(new Error('key store unreachable'), hostFor(reply, { id: 'req-1' }));

    expect(reply.code).toHaveBeenCalledWith(500);
    expect(reply.send).toHaveBeenCalledWith({ code: 'internal_error', message: 'Internal server error', status: 500 });
    expect(logged).toHaveBeenCalledWith({ requestId: 'req-1' }, expect.stringContaining('key store unreachable'));
    logged.mockRestore();
  });

  it('closes the connection after refusing a body it did not read', () => {
    const reply = fakeReply();
    new AllExceptionsFilter().catch(new PayloadTooLargeError(), hostFor(reply));
    expect(reply.header).toHaveBeenCalledWith('Connection', 'close');
    expect(reply.code).toHaveBeenCalledWith(413);
    expect(reply.send).toHaveBeenCalledWith({ code: 'payload_too_large', message: 'Request body is too large', status: 413 });
  });

  it('tells the client when to come back after a refusal that says so', () => {
    class Away extends RetryLaterError {
      readonly code = SERVICE_UNAVAILABLE;
    }
    const reply = fakeReply();
    new AllExceptionsFilter().catch(new Away('The store is away', 2), hostFor(reply));
    expect(reply.header).toHaveBeenCalledWith('Retry-After', 2);
    expect(reply.code).toHaveBeenCalledWith(503);
    expect(reply.send).toHaveBeenCalledWith({ code: 'service_unavailable', message: 'The store is away', status: 503 });
  });
});
