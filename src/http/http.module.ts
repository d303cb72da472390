import { Module } from '@nestjs/common';
import { UnknownRouteController } from './unknown-route.controller';
import { StrictValidationPipe } from './validation';

/**
 * What every module's routes share: the one validation pipe, which the
 * request pipeline (request-pipeline.ts) registers, and the catch-all that
 * answers an address no route has.
 */
@Module({
  controllers: [UnknownRouteController],
  providers: [StrictValidationPipe],
})
export class HttpModule {}
