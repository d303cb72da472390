import { ArgumentsHost, HttpException, Logger, NotFoundException } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { AllExceptionsFilter } from './all-exceptions.filter';
import { errorCodeSentOn } from './sent-error-code';

describe('AllExceptionsFilter', () => {
  it('notes the code it answered with on the response, for observers such as metrics', async () => {
    const reply = jest.fn();
    const filter = new AllExceptionsFilter({ httpAdapter: { reply } } as unknown as HttpAdapterHost);
    const response = {};
    const host = { switchToHttp: () => ({ getResponse: () => response, getRequest: () => ({}) }) } as unknown as ArgumentsHost;

    await filter.catch(new HttpException('Too Many Requests', 429), host);

    expect(reply).toHaveBeenCalledWith(response, expect.objectContaining({ code: 'rate_limited', status: 429 }), 429);
    expect(errorCodeSentOn(response)).toBe('rate_limited');
    expect(errorCodeSentOn({})).toBeUndefined();
  });

  it('answers and logs the error a hook replaced the original with, not the original', async () => {
    const reply = jest.fn();
    const failure = new Error('key store unreachable');
    const hook = { beforeErrorReply: jest.fn().mockRejectedValue(failure) };
    const filter = new AllExceptionsFilter({ httpAdapter: { reply } } as unknown as HttpAdapterHost, hook);
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const response = {};
    const host = { switchToHttp: () => ({ getResponse: () => response, getRequest: () => ({ id: 'req-1' }) }) } as unknown as ArgumentsHost;

    await filter.catch(new NotFoundException(), host);

    expect(reply).toHaveBeenCalledWith(response, { code: 'internal_error', message: 'Internal server error', status: 500 }, 500);
    expect(logged).toHaveBeenCalledWith({ requestId: 'req-1' }, expect.stringContaining('key store unreachable'));
    logged.mockRestore();
  });
});
