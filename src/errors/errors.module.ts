import { Module } from '@nestjs/common';
import { AllExceptionsFilter } from './http/all-exceptions.filter';

/** The one exception filter, which the request pipeline (request-pipeline.ts) registers for every route. */
@Module({
  providers: [AllExceptionsFilter],
})
export class ErrorsModule {}
