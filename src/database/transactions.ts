import { ClsPluginTransactional, TransactionalAdapter, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm, TypeOrmTransactionOptions } from '@nestjs-cls/transactional-adapter-typeorm';
import { DynamicModule, Global, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { getDataSourceToken } from '@nestjs/typeorm';
import { ClsModule } from 'nestjs-cls';
import { DataSource, EntityManager } from 'typeorm';
import { statementGateOf } from './sqlite-statement-gate';
import { sqliteTransactions } from './sqlite-transactions';
import { TransactionalUnitOfWork } from './transactional-unit-of-work';

/**
 * The Nest ecosystem's TypeORM adapter on MySQL; on SQLite our own, since the
 * driver's one connection must be held by a transaction alone, from its first
 * statement only (docs/adr/0055).
 */
function typeOrmAdapter(): TransactionalAdapter<DataSource, EntityManager, TypeOrmTransactionOptions> {
  const typeorm = new TransactionalAdapterTypeOrm({ dataSourceToken: getDataSourceToken() });
  return {
    connectionToken: typeorm.connectionToken,
    optionsFactory: (dataSource) => {
      if (dataSource.options.type !== 'better-sqlite3') return typeorm.optionsFactory(dataSource);
      const gate = statementGateOf(dataSource.subscribers);
      // Without the gate, a statement sent while a transaction is open would silently join it.
      if (!gate) throw new Error('A SQLite DataSource needs SqliteStatementGate among its subscribers: build its options with createDataSourceOptions');
      return sqliteTransactions(dataSource, gate);
    },
  };
}

/**
 * Transactions through nestjs-cls: no middleware, guard or interceptor opens a
 * context per request, since a transaction opens its own, so a request that
 * writes nothing pays nothing for them.
 */
export function transactionsModule(): DynamicModule {
  return ClsModule.forRoot({ global: true, plugins: [new ClsPluginTransactional({ adapter: typeOrmAdapter() })] });
}

export interface Transactions {
  readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>;
  readonly unitOfWork: TransactionalUnitOfWork;
  close(): Promise<void>;
}

/** Transactions on a DataSource opened outside the app (tools, specs); closing them leaves the DataSource open. */
export async function openTransactions(dataSource: DataSource): Promise<Transactions> {
  @Global()
  @Module({ providers: [{ provide: getDataSourceToken(), useValue: dataSource }], exports: [getDataSourceToken()] })
  class GivenDataSource {}
  @Module({ imports: [GivenDataSource, transactionsModule()], providers: [TransactionalUnitOfWork] })
  class TransactionsOnly {}
  const context = await NestFactory.createApplicationContext(TransactionsOnly, { logger: false, abortOnError: false });
  return { txHost: context.get(TransactionHost), unitOfWork: context.get(TransactionalUnitOfWork), close: () => context.close() };
}
