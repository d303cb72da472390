import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { LoggerModule } from 'nestjs-pino';
import { destination, DestinationStream } from 'pino';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { HealthController } from './health.controller';
import { createLoggerParams, LOG_DESTINATION } from './logging';
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
      providers: [{ provide: LOG_DESTINATION, useFactory: () => destination({ dest: 1, sync: true }) }],
      inject: [AppConfig, LOG_DESTINATION],
      useFactory: (config: AppConfig, stream: DestinationStream) => createLoggerParams(config, stream),
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
