import { Injectable, NestMiddleware } from '@nestjs/common';
import type { HeadersObject } from '@nestjs/swagger';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppConfig } from '../../config/app-config';
import { requestOrigin } from '../../http/request-origin';

export const GET_PET_SUNSET = 'Thu, 05 Dec 2030 00:00:00 GMT';

/** The headers below, as the API document describes them on every response of `getPet`. */
export const DEPRECATION_RESPONSE_HEADERS: HeadersObject = {
  Deprecation: {
    required: true,
    description: 'RFC 9745: when the operation was deprecated, as `@<Unix seconds>`',
    schema: { type: 'string', pattern: '^@\\d+$', example: '@1763683200' },
  },
  Sunset: {
    required: true,
    description: 'RFC 8594: the operation is removed at this time',
    schema: { type: 'string', enum: [GET_PET_SUNSET] },
  },
  Link: {
    required: true,
    description: 'RFC 8288: the operation that replaces this one, `GET /pets` (filter with `status`)',
    schema: { type: 'string', pattern: '^<[^>]+/v1/pets>; rel="successor-version"$' },
  },
};

/**
 * `GET /v1/pets/{petId}` is deprecated (RFC 9745) and sunsets on 5 December 2030
 * (RFC 8594). A middleware runs before guards, pipes and filters, so every
 * response of the operation carries the headers, errors included.
 */
@Injectable()
export class DeprecationHeadersMiddleware implements NestMiddleware {
  private readonly deprecation: string;

  constructor(private readonly config: AppConfig) {
    this.deprecation = `@${config.deprecatedAt}`;
  }

  use(request: IncomingMessage, response: ServerResponse, next: () => void): void {
    response.setHeader('Deprecation', this.deprecation);
    response.setHeader('Sunset', GET_PET_SUNSET);
    response.setHeader('Link', `<${requestOrigin(request, this.config.trustProxy)}/v1/pets>; rel="successor-version"`);
    next();
  }

}
