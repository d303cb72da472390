import { Injectable } from '@nestjs/common';
import { DatabaseReads, ReadTarget } from '../../database/database-reads';
import { isDuplicateKey, isLockConflict } from '../../database/driver-errors';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { execute, insert, query } from '../../database/statements';
import { Order, SettledStatus } from '../domain/order';
import { OrderedPetNotFoundError, PetNotAvailableError, TooManyOpenOrdersError } from '../domain/order.errors';
import { NewOrder, OrderPageQuery, OrderReadFreshness, OrderRepository } from '../domain/order.repository';
import { OrderOrmEntity } from './order.orm-entity';

const COLUMNS =
  'id, account_id AS accountId, pet_id AS petId, status, placed_at AS placedAt, hold_until AS holdUntil, delivered_at AS deliveredAt, cancelled_at AS cancelledAt';

type OrderRow = Omit<OrderOrmEntity, 'activePetId'>;

/** Fixed statements with bound parameters, so both drivers reuse their prepared statements (docs/adr/0006). */
const SQL = {
  holdPet: "UPDATE pets SET status = 'pending' WHERE id = ? AND status = 'available'",
  petStatus: 'SELECT status FROM pets WHERE id = ?',
  /** On a Galera node, waits until the node has applied every write the cluster committed before it reads; a comment elsewhere. */
  latestPetStatus: '/*M! SET STATEMENT wsrep_sync_wait = 1 FOR */ SELECT status FROM pets WHERE id = ?',
  takePlace: 'UPDATE accounts SET placed_orders = placed_orders + 1 WHERE id = ? AND placed_orders < ?',
  freePlace: 'UPDATE accounts SET placed_orders = placed_orders - 1 WHERE id = ? AND placed_orders > 0',
  insert: "INSERT INTO orders (account_id, pet_id, status, active_pet_id, placed_at, hold_until) VALUES (?, ?, 'placed', ?, ?, ?)",
  deliver: "UPDATE orders SET status = 'delivered', delivered_at = ? WHERE id = ? AND status = 'placed'",
  cancel: "UPDATE orders SET status = 'cancelled', active_pet_id = NULL, cancelled_at = ? WHERE id = ? AND status = 'placed'",
  cancelExpired: "UPDATE orders SET status = 'cancelled', active_pet_id = NULL, cancelled_at = ? WHERE id = ? AND status = 'placed' AND hold_until <= ?",
  setPetStatus: 'UPDATE pets SET status = ? WHERE id = ?',
  byId: `SELECT ${COLUMNS} FROM orders WHERE id = ?`,
  ownById: `SELECT ${COLUMNS} FROM orders WHERE id = ? AND account_id = ?`,
  page: `SELECT ${COLUMNS} FROM orders WHERE account_id = ? AND id > ? ORDER BY id LIMIT ?`,
  pageByStatus: `SELECT ${COLUMNS} FROM orders WHERE account_id = ? AND status = ? AND id > ? ORDER BY id LIMIT ?`,
  expired: "SELECT id FROM orders WHERE status = 'placed' AND hold_until <= ? ORDER BY hold_until LIMIT ?",
} as const;

const TARGET: Record<OrderReadFreshness, ReadTarget> = { latest: 'primary', 'may-lag': 'replica' };

/** What a settled order's pet becomes. */
const PET_STATUS_AFTER: Record<SettledStatus, string> = { delivered: 'sold', cancelled: 'available' };

function toOrder(row: OrderRow): Order {
  // MySQL may hand a BIGINT back as a string; the domain gets numbers.
  return {
    id: Number(row.id),
    accountId: Number(row.accountId),
    petId: Number(row.petId),
    status: row.status,
    placedAt: Number(row.placedAt),
    holdUntil: Number(row.holdUntil),
    ...(row.deliveredAt == null ? {} : { deliveredAt: Number(row.deliveredAt) }),
    ...(row.cancelledAt == null ? {} : { cancelledAt: Number(row.cancelledAt) }),
  };
}

/**
 * The orders on TypeORM; the same statements serve SQLite and MySQL. Each
 * write runs in the unit of work in progress, so an order, its pet and its
 * account's count of placed orders change together. A place takes the pet's
 * row first, which serializes every order for one pet on any instance.
 */
@Injectable()
export class TypeOrmOrderRepository extends OrderRepository {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly reads: DatabaseReads,
  ) {
    super();
  }

  async place(order: NewOrder): Promise<Order> {
    try {
      if ((await execute(this.txHost.tx, SQL.holdPet, [order.petId])) === 0) {
        const [pet] = await query<{ status: string }>(this.txHost.tx, SQL.petStatus, [order.petId]);
        throw pet ? new PetNotAvailableError(order.petId) : new OrderedPetNotFoundError(order.petId);
      }
      if ((await execute(this.txHost.tx, SQL.takePlace, [order.accountId, order.openOrdersCap])) === 0) throw new TooManyOpenOrdersError(order.openOrdersCap);
      const id = await insert(this.txHost.tx, SQL.insert, [order.accountId, order.petId, order.petId, order.placedAt, order.holdUntil]);
      return { id, accountId: order.accountId, petId: order.petId, status: 'placed', placedAt: order.placedAt, holdUntil: order.holdUntil };
    } catch (error) {
      // Another unit won the pet: its order holds the unique active pet id, or the store chose this one to give way.
      if (isDuplicateKey(error) || isLockConflict(error)) throw new PetNotAvailableError(order.petId);
      throw error;
    }
  }

  async findOwn(accountId: number, orderId: number, freshness: OrderReadFreshness): Promise<Order | null> {
    let { rows, servedBy } = await this.reads.query<OrderRow>(SQL.ownById, [orderId, accountId], TARGET[freshness]);
    // An order missing from a replica may only be younger than its lag: the primary has the last word on a 404.
    if (rows.length === 0 && servedBy === 'replica') ({ rows } = await this.reads.query<OrderRow>(SQL.ownById, [orderId, accountId], 'primary'));
    return rows.length ? toOrder(rows[0]) : null;
  }

  async findPage({ accountId, limit, status, afterId = 0 }: OrderPageQuery, freshness: OrderReadFreshness): Promise<Order[]> {
    const { rows } = status
      ? await this.reads.query<OrderRow>(SQL.pageByStatus, [accountId, status, afterId, limit], TARGET[freshness])
      : await this.reads.query<OrderRow>(SQL.page, [accountId, afterId, limit], TARGET[freshness]);
    return rows.map(toOrder);
  }

  async settle(orderId: number, status: SettledStatus, at: number, onlyIfHeldUntil?: number): Promise<Order | null> {
    const moved =
      status === 'delivered'
        ? await execute(this.txHost.tx, SQL.deliver, [at, orderId])
        : onlyIfHeldUntil === undefined
          ? await execute(this.txHost.tx, SQL.cancel, [at, orderId])
          : await execute(this.txHost.tx, SQL.cancelExpired, [at, orderId, onlyIfHeldUntil]);
    if (moved === 0) return null;
    const [row] = await query<OrderRow>(this.txHost.tx, SQL.byId, [orderId]);
    const order = toOrder(row);
    await execute(this.txHost.tx, SQL.setPetStatus, [PET_STATUS_AFTER[status], order.petId]);
    await execute(this.txHost.tx, SQL.freePlace, [order.accountId]);
    return order;
  }

  async isPetTaken(petId: number): Promise<boolean> {
    const [pet] = await query<{ status: string }>(this.txHost.tx, SQL.latestPetStatus, [petId]);
    return pet !== undefined && pet.status !== 'available';
  }

  async findExpired(now: number, limit: number): Promise<number[]> {
    const rows = await query<{ id: number | string }>(this.txHost.tx, SQL.expired, [now, limit]);
    return rows.map(({ id }) => Number(id));
  }
}
