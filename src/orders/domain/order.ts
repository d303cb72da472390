export const ORDER_STATUSES = ['placed', 'delivered', 'cancelled'] as const;

export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** What a client asks of an order once it is placed; each ends in the status of the same name. */
export type OrderAction = 'deliver' | 'cancel';

/** Where an order ends: no action leads back to placed. */
export type SettledStatus = Exclude<OrderStatus, 'placed'>;

export const STATUS_AFTER: Readonly<Record<OrderAction, SettledStatus>> = { deliver: 'delivered', cancel: 'cancelled' };

/**
 * A pet ordered by an account. Times are epoch milliseconds. A placed order
 * holds its pet (pending) until `holdUntil`; delivered, the pet is sold;
 * cancelled, it is available again.
 */
export interface Order {
  readonly id: number;
  readonly accountId: number;
  readonly petId: number;
  readonly status: OrderStatus;
  readonly placedAt: number;
  readonly holdUntil: number;
  readonly deliveredAt?: number;
  readonly cancelledAt?: number;
}

/**
 * Whether `action` moves the order: a placed order may be delivered or
 * cancelled; asked again of an order already there, nothing changes; any
 * other move is refused (undefined).
 */
export function transitionOf(order: Pick<Order, 'status'>, action: OrderAction): 'move' | 'same' | undefined {
  if (order.status === 'placed') return 'move';
  return order.status === STATUS_AFTER[action] ? 'same' : undefined;
}
