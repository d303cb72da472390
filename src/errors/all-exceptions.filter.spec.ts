import { ArgumentsHost, HttpException, Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { AllExceptionsFilter } from './all-exceptions.filter';
import { errorCodeSentOn } from './sent-error-code';

describe('AllExceptionsFilter', () => {
  const hostFor = (response: object, request: object = {}) =>
    ({ switchToHttp: () => ({ getResponse: () => response, getRequest: () => request }) }) as unknown as ArgumentsHost;

  it('notes the code it answered with on the response, for observers such as metrics', () => {
    const reply = jest.fn();
    const filter = new AllExceptionsFilter({ httpAdapter: { reply } } as unknown as HttpAdapterHost);
    const response = {};

    filter.catch(new HttpException('Too Many Requests', 429), hostFor(response));

    expect(reply).toHaveBeenCalledWith(response, expect.objectContaining({ code: 'rate_limited', status: 429 }), 429);
    expect(errorCodeSentOn(response)).toBe('rate_limited');
    expect(errorCodeSentOn({})).toBeUndefined();
  });

  it('answers an unexpected error as internal_error and logs its cause with the request id', () => {
    const reply = jest.fn();
    const filter = new AllExceptionsFilter({ httpAdapter: { reply } } as unknown as HttpAdapterHost);
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const response = {};

    filter.catch(new Error('key store unreachable'), hostFor(response, { id: 'req-1' }));

    expect(reply).toHaveBeenCalledWith(response, { code: 'internal_error', message: 'Internal server error', status: 500 }, 500);
    expect(logged).toHaveBeenCalledWith({ requestId: 'req-1' }, expect.stringContaining('key store unreachable'));
    logged.mockRestore();
  });
});
