import { Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { AllExceptionsFilter } from './all-exceptions.filter';

@Module({
  providers: [AllExceptionsFilter, { provide: APP_FILTER, useExisting: AllExceptionsFilter }],
  exports: [AllExceptionsFilter],
})
export class ErrorsModule {}
