import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IdempotencyService } from './application/idempotency.service';
import { IdempotencyRecordStore } from './domain/idempotency-record.store';
import { IdempotencyRecordOrmEntity } from './infrastructure/idempotency-record.orm-entity';
import { TypeOrmIdempotencyRecordStore } from './infrastructure/typeorm-idempotency-record.store';

/** Idempotency-Key handling, for the modules whose routes create something: import it and mark the route @Idempotent(). */
@Module({
  imports: [TypeOrmModule.forFeature([IdempotencyRecordOrmEntity])],
  providers: [IdempotencyService, { provide: IdempotencyRecordStore, useClass: TypeOrmIdempotencyRecordStore }],
  exports: [IdempotencyService],
})
export class IdempotencyModule {}
