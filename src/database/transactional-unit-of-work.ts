import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { TransactionHost } from '@nestjs-cls/transactional';
import { Injectable } from '@nestjs/common';
import { unavailableOr } from './driver-errors';
import { UnitOfWork } from './unit-of-work';

/**
 * The unit of work as one transaction of the Nest ecosystem's TransactionHost:
 * repositories reach its EntityManager through `txHost.tx` (docs/adr/0055).
 */
@Injectable()
export class TransactionalUnitOfWork extends UnitOfWork {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {
    super();
  }

  /** Inside a unit, errors reach the enclosing work as the driver raised them (an adapter may read a lock conflict as its own answer); the outermost unit answers for them. */
  run<T>(work: () => Promise<T>): Promise<T> {
    if (this.txHost.isTransactionActive()) return work();
    return this.txHost.withTransaction(work).catch((error: unknown) => {
      throw unavailableOr(error);
    });
  }
}
