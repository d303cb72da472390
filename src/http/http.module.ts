import { Module, type OnModuleInit } from '@nestjs/common';
import { APP_PIPE, HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { AppConfig } from '../config/app-config';
import { registerDeprecationHeaders } from './deprecation';
import { registerPrivateAnswers } from './private-answers';
import { REQUEST_STATE_FIELD } from './request-context';
import { UnknownRouteController } from './unknown-route.controller';
import { StrictValidationPipe } from './validation';

/**
 * What every module's routes share: the request's state (declared on every
 * request), the one validation pipe, the deprecation headers of @Deprecated()
 * routes, the private-cache headers of /v1 answers, and the catch-all that
 * answers an address no route has.
 */
@Module({
  controllers: [UnknownRouteController],
  providers: [StrictValidationPipe, { provide: APP_PIPE, useExisting: StrictValidationPipe }],
})
export class HttpModule implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly config: AppConfig,
  ) {}

  /** Fastify builds each route's hooks when it gets ready, after this, so the hook reaches every route; without an HTTP server (the keys command) there is nothing to do. */
  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    if (!fastify) return;
    fastify.decorateRequest(REQUEST_STATE_FIELD, null);
    registerDeprecationHeaders(fastify, this.config);
    registerPrivateAnswers(fastify);
  }
}
