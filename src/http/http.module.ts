import { Global, Module, type OnModuleInit } from '@nestjs/common';
import { APP_PIPE, HttpAdapterHost } from '@nestjs/core';
import { DeprecationGuard } from './deprecation';
import { declareRequestFields } from './request-context';
import { RouteAccess } from './route-access';
import { RouteReflector } from './route-reflector';
import { UnknownRouteController } from './unknown-route.controller';
import { BodyValidation, StrictValidationPipe } from './validation';

/**
 * What every module's routes share: one RouteReflector (a route's metadata
 * read once), who a route lets in, the deprecation headers, the one
 * validation pipe, and the catch-all that answers an address no route has.
 * Global, so any module's guards and interceptors can ask.
 * It declares the request's caller, which the authentication guard sets.
 */
@Global()
@Module({
  controllers: [UnknownRouteController],
  providers: [RouteReflector, RouteAccess, DeprecationGuard, StrictValidationPipe, BodyValidation, { provide: APP_PIPE, useExisting: StrictValidationPipe }],
  exports: [RouteReflector, RouteAccess, DeprecationGuard, BodyValidation],
})
export class HttpModule implements OnModuleInit {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    declareRequestFields(this.adapterHost, 'caller');
  }
}
