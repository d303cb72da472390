import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Clock, Repeating, repeatEvery } from '../../config/clock';
import { UnitOfWork } from '../../database/unit-of-work';
import { SWEEP_BATCH, SWEEP_INTERVAL_MS } from '../../idempotency/application/idempotency-sweeper';
import { OrderRepository } from '../domain/order.repository';

/**
 * Housekeeping on the idempotency sweep's schedule: every interval, a batch of
 * placed orders whose hold has ended is cancelled, each in its own unit with
 * its pet made available again. Every instance sweeps; an order another
 * instance (or its client) settled first is left as it is. A sweep that fails
 * is logged and tried again at the next.
 */
@Injectable()
export class OrderExpiry implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Orders');
  private sweeps?: Repeating;
  private stopping = false;

  constructor(
    private readonly orders: OrderRepository,
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.sweeps = repeatEvery(this.clock, SWEEP_INTERVAL_MS, () => this.sweep());
  }

  /** Waits for a sweep under way, so the pool it uses closes after it. */
  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await this.sweeps?.stop();
  }

  private async sweep(): Promise<void> {
    try {
      const now = this.clock.now();
      for (const id of await this.orders.findExpired(now, SWEEP_BATCH)) {
        if (this.stopping) return;
        await this.unitOfWork.run(() => this.orders.settle(id, 'cancelled', now, now));
      }
    } catch (error) {
      this.logger.warn(`Cancelling orders whose hold ended failed (${(error as Error).message}); the next sweep tries again`);
    }
  }
}
