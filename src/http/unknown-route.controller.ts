import { All, Controller, Param } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { MAX_PARAM_LENGTH, RouteNotFoundError, UriTooLongError } from '../errors/http/request-errors';
import { Public } from './public.decorator';

/**
 * Every `/v1` address that no operation answers. Being a route, such a request
 * passes the same guards as any other, so it is counted against its caller and
 * carries the rate-limit headers. Public: an unknown address is a 404, not a 401.
 */
@ApiExcludeController()
@Public()
@Controller({ version: '1' })
export class UnknownRouteController {
  @All(['', '*'])
  unknownRoute(@Param('*') rest = ''): never {
    // The router falls back to this route when a path parameter is over its length limit.
    if (rest.split('/').some((segment) => segment.length > MAX_PARAM_LENGTH)) throw new UriTooLongError();
    throw new RouteNotFoundError();
  }
}
