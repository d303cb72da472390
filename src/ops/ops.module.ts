import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { LoggerModule } from 'nestjs-pino';
import { destination } from 'pino';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { HealthController } from './health.controller';
import { createLoggerParams, createRootLogger, LOG_DESTINATION, ROOT_LOGGER } from './logging';
import { OpsMetrics } from './metrics';
import { MetricsController } from './metrics.controller';
import { READINESS_CHECKS, ReadinessCheck } from './readiness';
import { ReadinessService } from './readiness.service';
import { RequestDrain } from './request-drain';

/** Probes, metrics and logs. Global, so any module can count through OpsMetrics. */
@Global()
@Module({
  imports: [
    DiscoveryModule,
    LoggerModule.forRootAsync({
      providers: [
        { provide: LOG_DESTINATION, useFactory: () => destination({ dest: 1, sync: true }) },
        { provide: ROOT_LOGGER, inject: [AppConfig, LOG_DESTINATION], useFactory: createRootLogger },
      ],
      inject: [ROOT_LOGGER],
      useFactory: createLoggerParams,
    }),
  ],
  controllers: [HealthController, MetricsController],
  providers: [
    OpsMetrics,
    ReadinessService,
    RequestDrain,
    {
      provide: READINESS_CHECKS,
      inject: [DataSource],
      useFactory: (dataSource: DataSource): ReadinessCheck => ({
        name: 'database',
        check: async () => {
          await dataSource.query('SELECT 1');
        },
      }),
    },
  ],
  exports: [OpsMetrics],
})
export class OpsModule {}
