import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { TypeOrmUnitOfWork } from '../database/typeorm-unit-of-work';
import { IdempotencyService } from './application/idempotency.service';
import { IdempotencyRecordStore } from './domain/idempotency-record.store';
import { IdempotencyRecordOrmEntity } from './infrastructure/idempotency-record.orm-entity';
import { MysqlIdempotencyRecordStore } from './infrastructure/mysql-idempotency-record.store';
import { SqliteIdempotencyRecordStore } from './infrastructure/sqlite-idempotency-record.store';

/** Idempotency-Key handling, for the modules whose routes create something: import it and mark the route @Idempotent(). */
@Module({
  imports: [TypeOrmModule.forFeature([IdempotencyRecordOrmEntity])],
  providers: [
    IdempotencyService,
    {
      provide: IdempotencyRecordStore,
      inject: [DataSource, TypeOrmUnitOfWork],
      useFactory: (dataSource: DataSource, unitOfWork: TypeOrmUnitOfWork): IdempotencyRecordStore =>
        dataSource.options.type === 'better-sqlite3' ? new SqliteIdempotencyRecordStore(unitOfWork) : new MysqlIdempotencyRecordStore(unitOfWork),
    },
  ],
  exports: [IdempotencyService],
})
export class IdempotencyModule {}
