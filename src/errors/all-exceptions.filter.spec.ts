import { ArgumentsHost, HttpException } from '@nestjs/common';
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
});
