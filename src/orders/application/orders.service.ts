import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { Clock } from '../../config/clock';
import { DatabaseUnavailableError } from '../../database/database.errors';
import { UnitOfWork } from '../../database/unit-of-work';
import { RecentWriters } from '../../pets/application/recent-writers';
import { Order, OrderAction, OrderStatus, STATUS_AFTER, transitionOf } from '../domain/order';
import { InvalidOrderTransitionError, OrderNotFoundError, PetNotAvailableError } from '../domain/order.errors';
import { OrderReadFreshness, OrderRepository } from '../domain/order.repository';
import { OpenOrderCaps } from './open-order-caps';

/** Who asks: the account that owns the orders, and its plan, which sets its cap. */
export interface OrderingAccount {
  readonly accountId: number;
  readonly plan: string;
}

export interface OrderPage {
  readonly orders: Order[];
  /** Id to continue after, present when more orders follow. */
  readonly nextAfterId?: number;
}

/**
 * The store's selling use cases. Each account sees its own orders only. An
 * account that changed an order reads the latest for as long as a replica
 * may lag; others may read a replica.
 */
@Injectable()
export class OrdersService {
  constructor(
    private readonly orders: OrderRepository,
    private readonly unitOfWork: UnitOfWork,
    private readonly caps: OpenOrderCaps,
    private readonly writers: RecentWriters,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  async place(account: OrderingAccount, petId: number): Promise<Order> {
    const now = this.clock.now();
    let order: Order;
    try {
      order = await this.unitOfWork.run(() =>
        this.orders.place({
          accountId: account.accountId,
          petId,
          placedAt: now,
          holdUntil: now + this.config.orderHoldSeconds * 1000,
          openOrdersCap: this.caps.capOf(account.plan),
        }),
      );
    } catch (error) {
      // A conflict the store finds only at commit (a Galera certification failure) is a lost race when the pet has gone meanwhile.
      if (error instanceof DatabaseUnavailableError && (await this.orders.isPetTaken(petId).catch(() => false))) throw new PetNotAvailableError(petId);
      throw error;
    }
    this.writers.noteWrite(account.accountId);
    return order;
  }

  async get(account: OrderingAccount, orderId: number): Promise<Order> {
    const order = await this.orders.findOwn(account.accountId, orderId, this.freshnessFor(account));
    if (!order) throw new OrderNotFoundError(orderId);
    return order;
  }

  async list(account: OrderingAccount, query: { limit: number; status?: OrderStatus; afterId?: number }): Promise<OrderPage> {
    // One extra row tells whether another page follows without a COUNT query.
    const rows = await this.orders.findPage({ ...query, accountId: account.accountId, limit: query.limit + 1 }, this.freshnessFor(account));
    if (rows.length <= query.limit) return { orders: rows };
    const orders = rows.slice(0, query.limit);
    return { orders, nextAfterId: orders[orders.length - 1].id };
  }

  /**
   * Delivers or cancels the account's order. Asked again, it answers the
   * order unchanged; the other action on a settled order is refused. A placed
   * order whose hold has ended is cancelled first, as the sweep would have.
   */
  async act(account: OrderingAccount, orderId: number, action: OrderAction): Promise<Order> {
    const order = await this.orders.findOwn(account.accountId, orderId, 'latest');
    if (!order) throw new OrderNotFoundError(orderId);
    const now = this.clock.now();
    let settled = order;
    if (order.status === 'placed') {
      const expired = order.holdUntil <= now;
      const moved = expired
        ? await this.unitOfWork.run(() => this.orders.settle(orderId, 'cancelled', now, now))
        : await this.unitOfWork.run(() => this.orders.settle(orderId, STATUS_AFTER[action], now));
      this.writers.noteWrite(account.accountId);
      // Null: another request settled it first; what it became decides the answer.
      settled = moved ?? (await this.orders.findOwn(account.accountId, orderId, 'latest')) ?? order;
    }
    const transition = transitionOf(settled, action);
    if (transition === 'move' || transition === undefined) throw new InvalidOrderTransitionError(orderId, settled.status, action);
    return settled;
  }

  private freshnessFor(account: OrderingAccount): OrderReadFreshness {
    return this.writers.wroteRecently(account.accountId) ? 'latest' : 'may-lag';
  }
}
