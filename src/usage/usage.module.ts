import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { UsageRecorder } from './application/usage-recorder';
import { UsageReports } from './application/usage-reports';
import { UsageRetention } from './application/usage-retention';
import { UsageStore } from './domain/usage';
import { UsageController } from './http/usage.controller';
import { TypeOrmUsageStore } from './infrastructure/typeorm-usage.store';
import { UsageOrmEntity } from './infrastructure/usage.orm-entity';

/**
 * Usage per key and account: each answer to a key counted by UTC day and
 * outcome (UsageRecorder, fed by the operations' response hook), written in
 * batches, pruned past retention, and read by `GET /v1/usage` and the keys
 * command. Global, so the operations hook and the keys command find the recorder and reports.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([UsageOrmEntity])],
  controllers: [UsageController],
  providers: [
    {
      provide: UsageStore,
      inject: [DataSource, TransactionHost],
      useFactory: (dataSource: DataSource, txHost: TransactionHost<TransactionalAdapterTypeOrm>): UsageStore =>
        new TypeOrmUsageStore(txHost, dataSource.options.type === 'better-sqlite3' ? 'sqlite' : 'mysql'),
    },
    UsageRecorder,
    UsageReports,
    UsageRetention,
  ],
  exports: [UsageRecorder, UsageReports, UsageRetention],
})
export class UsageModule {}
