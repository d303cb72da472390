import { Global, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { destination } from 'pino';
import { AppConfig } from '../config/app-config';
import { createLoggerParams, createRootLogger, LOG_DESTINATION, ROOT_LOGGER } from './logging';
import { OpsMetrics } from './metrics';
import { MetricsController } from './metrics.controller';
import { RequestDrain } from './request-drain';

/** Metrics and logs. Global, so any module can count through OpsMetrics. */
@Global()
@Module({
  imports: [
    LoggerModule.forRootAsync({
      providers: [
        { provide: LOG_DESTINATION, useFactory: () => destination({ dest: 1, sync: true }) },
        { provide: ROOT_LOGGER, inject: [AppConfig, LOG_DESTINATION], useFactory: createRootLogger },
      ],
      inject: [ROOT_LOGGER],
      useFactory: createLoggerParams,
    }),
  ],
  controllers: [MetricsController],
  providers: [
    OpsMetrics,
    RequestDrain,
  ],
  exports: [OpsMetrics],
})
export class OpsModule {}
