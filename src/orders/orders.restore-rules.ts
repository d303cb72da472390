import { type BackupRow, idProblem, type TableRestoreRules } from '../database/backup/restore-rules';
import { ORDER_STATUSES, type OrderStatus } from './domain/order';

/** The latest time a JavaScript Date holds, in epoch milliseconds: a time past it could not be written as RFC 3339. */
const MAX_TIME = 8.64e15;

const isTime = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= MAX_TIME;

/** Which of an order's settlement times its status gives it: the one of its end, none while placed. */
const SETTLED_AT: Readonly<Record<OrderStatus, string | undefined>> = { placed: undefined, delivered: 'delivered_at', cancelled: 'cancelled_at' };

function timeProblem(row: BackupRow, status: OrderStatus): string | undefined {
  for (const column of ['placed_at', 'hold_until']) if (!isTime(row[column])) return `${column} must be a time in epoch milliseconds`;
  if ((row.hold_until as number) < (row.placed_at as number)) return 'hold_until must not come before placed_at';
  for (const column of ['delivered_at', 'cancelled_at']) {
    if (column !== SETTLED_AT[status]) {
      if (row[column] !== null) return `${column} must be null for a ${status} order`;
    } else if (!isTime(row[column]) || (row[column] as number) < (row.placed_at as number)) {
      return `${column} must be a time in epoch milliseconds, not before placed_at`;
    }
  }
  return undefined;
}

/** The first of the rows that breaks a rule spanning tables, or undefined. */
async function first(query: (sql: string) => Promise<BackupRow[]>, sql: string): Promise<BackupRow | undefined> {
  return (await query(sql))[0];
}

/**
 * A restored order keeps the rules the orders module writes by: ids in range,
 * a status of the three, the times its status gives it, and its pet's id as
 * its active pet while placed or delivered only. Once every row is in, the
 * rules of selling that span tables: one placed or delivered order per pet,
 * its pet pending while placed and sold once delivered (unless removed since),
 * and each account's count of placed orders, which its cap is held against.
 */
export const ORDERS_RESTORE_RULES: TableRestoreRules = {
  table: 'orders',
  rowKey: ['id'],
  numbered: 'id',
  async checkRow(row) {
    const id = idProblem(row, ['id', 'account_id', 'pet_id', 'active_pet_id'], ['active_pet_id']);
    if (id) return id;
    const status = row.status as OrderStatus;
    if (!ORDER_STATUSES.includes(status)) return `status must be one of ${ORDER_STATUSES.join(', ')}`;
    const active = status === 'cancelled' ? null : row.pet_id;
    if (row.active_pet_id !== active) return status === 'cancelled' ? 'active_pet_id must be null for a cancelled order' : `active_pet_id must be pet_id for a ${status} order`;
    return timeProblem(row, status);
  },
  async checkRestored(query) {
    const twice = await first(
      query,
      "SELECT pet_id AS petId FROM orders WHERE status IN ('placed', 'delivered') GROUP BY pet_id HAVING COUNT(*) > 1 ORDER BY pet_id LIMIT 1",
    );
    if (twice) return `pet ${twice.petId} has more than one placed or delivered order`;
    const astray = await first(
      query,
      "SELECT o.id, o.status, p.id AS petId, p.status AS petStatus FROM orders o JOIN pets p ON p.id = o.pet_id WHERE (o.status = 'placed' AND p.status <> 'pending') OR (o.status = 'delivered' AND p.status <> 'sold') ORDER BY o.id LIMIT 1",
    );
    if (astray) return `order ${astray.id} is ${astray.status} but its pet ${astray.petId} is ${astray.petStatus}`;
    const miscounted = await first(
      query,
      "SELECT a.id FROM accounts a WHERE a.placed_orders <> (SELECT COUNT(*) FROM orders o WHERE o.account_id = a.id AND o.status = 'placed') ORDER BY a.id LIMIT 1",
    );
    return miscounted ? `account ${miscounted.id} counts another number of placed orders than it holds` : undefined;
  },
};
