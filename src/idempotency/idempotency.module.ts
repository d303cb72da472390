import { Module, type OnModuleInit } from '@nestjs/common';
import { DiscoveryModule, DiscoveryService, Reflector } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { IS_PUBLIC } from '../http/public.decorator';
import { declaredRoutes, RouteDeclarationError } from '../http/route-declarations';
import { IdempotencySweeper } from './application/idempotency-sweeper';
import { IdempotencyService } from './application/idempotency.service';
import { IdempotencyRecordStore } from './domain/idempotency-record.store';
import { IDEMPOTENT } from './http/idempotent.decorator';
import { IdempotencyRecordOrmEntity } from './infrastructure/idempotency-record.orm-entity';
import { MysqlIdempotencyRecordStore } from './infrastructure/mysql-idempotency-record.store';
import { SqliteIdempotencyRecordStore } from './infrastructure/sqlite-idempotency-record.store';

/** Idempotency-Key handling, for the modules whose routes create something: import it and mark the route @Idempotent(). */
@Module({
  imports: [TypeOrmModule.forFeature([IdempotencyRecordOrmEntity]), DiscoveryModule],
  providers: [
    IdempotencyService,
    IdempotencySweeper,
    {
      provide: IdempotencyRecordStore,
      inject: [DataSource, TransactionHost],
      useFactory: (dataSource: DataSource, txHost: TransactionHost<TransactionalAdapterTypeOrm>): IdempotencyRecordStore =>
        dataSource.options.type === 'better-sqlite3' ? new SqliteIdempotencyRecordStore(txHost) : new MysqlIdempotencyRecordStore(txHost),
    },
  ],
  exports: [IdempotencyService],
})
export class IdempotencyModule implements OnModuleInit {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly reflector: Reflector,
  ) {}

  /** An Idempotency-Key is kept per API key: an @Idempotent() route that takes callers without one could not keep it. */
  onModuleInit(): void {
    for (const { controller, handler, name } of declaredRoutes(this.discovery)) {
      if (this.reflector.get(IDEMPOTENT, handler) === true && this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [handler, controller])) {
        throw new RouteDeclarationError(`@Idempotent() on ${name}, a @Public() route: an Idempotency-Key is kept per API key, so the route must require one`);
      }
    }
  }
}
