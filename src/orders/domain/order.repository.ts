import type { Order, OrderStatus, SettledStatus } from './order';

export interface NewOrder {
  readonly accountId: number;
  readonly petId: number;
  readonly placedAt: number;
  readonly holdUntil: number;
  /** The account's plan's number of placed orders; one more is refused. */
  readonly openOrdersCap: number;
}

export interface OrderPageQuery {
  readonly accountId: number;
  readonly limit: number;
  readonly status?: OrderStatus;
  /** Return only orders whose id is greater than this one (keyset pagination). */
  readonly afterId?: number;
}

/** A read that must see every write so far (`latest`), or one that may lag behind by a replica's bound (`may-lag`). */
export type OrderReadFreshness = 'latest' | 'may-lag';

/**
 * Port to the order store. The store keeps the rules that must hold across
 * every instance: a pet has at most one placed or delivered order, a pet's
 * status follows its order, and an account holds at most its cap of placed
 * orders. Each write here is one unit with the pet's change.
 */
export abstract class OrderRepository {
  /**
   * Places the order and makes its pet pending. Throws OrderedPetNotFoundError,
   * PetNotAvailableError (the pet is not available, or another order won it
   * meanwhile) or TooManyOpenOrdersError.
   */
  abstract place(order: NewOrder): Promise<Order>;
  /** The account's order, or null when there is none with that id (another account's included). */
  abstract findOwn(accountId: number, orderId: number, freshness: OrderReadFreshness): Promise<Order | null>;
  /** The account's orders in ascending id order, at most `limit` of them. */
  abstract findPage(query: OrderPageQuery, freshness: OrderReadFreshness): Promise<Order[]>;
  /**
   * Moves a placed order to `status` at `at` (delivered: its pet sold;
   * cancelled: its pet available) and frees its place under the account's
   * cap; `onlyIfHeldUntil` moves it only when its hold ended by then. The order
   * as it stands after, or null when it was no longer placed (or not expired).
   */
  abstract settle(orderId: number, status: SettledStatus, at: number, onlyIfHeldUntil?: number): Promise<Order | null>;
  /** Whether the pet is no longer available, read from the latest, outside any unit of work. */
  abstract isPetTaken(petId: number): Promise<boolean>;
  /** Ids of at most `limit` placed orders whose hold ended by `now`, the oldest first, read without locks. */
  abstract findExpired(now: number, limit: number): Promise<number[]>;
}
