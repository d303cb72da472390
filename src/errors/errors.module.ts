import { Module } from '@nestjs/common';
import { AllExceptionsFilter } from './all-exceptions.filter';

/** The one exception filter, which the request pipeline (request-pipeline.ts) registers for every route. */
@Module({
  providers: [AllExceptionsFilter],
})
export class ErrorsModule {}
