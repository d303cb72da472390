import type { QueryRunner } from 'typeorm';
import { BackupRefusedError } from './backup-file';

/**
 * The rules of selling that span tables, checked on the rows a restore wrote
 * before they are committed: one placed or delivered order per pet, each
 * order's pet in the status its order gives it (placed: pending; delivered:
 * sold, unless the pet was deleted since), and each account's count of
 * placed orders, which its cap is held against, equal to its placed orders.
 */
export async function checkOrderRules(runner: QueryRunner): Promise<void> {
  const [twice] = (await runner.query(
    "SELECT pet_id AS petId FROM orders WHERE status IN ('placed', 'delivered') GROUP BY pet_id HAVING COUNT(*) > 1 ORDER BY pet_id LIMIT 1",
  )) as Array<{ petId: number | string }>;
  if (twice) throw new BackupRefusedError(`pet ${twice.petId} has more than one placed or delivered order; nothing was restored`);
  const [astray] = (await runner.query(
    "SELECT o.id, o.status, p.id AS petId, p.status AS petStatus FROM orders o JOIN pets p ON p.id = o.pet_id WHERE (o.status = 'placed' AND p.status <> 'pending') OR (o.status = 'delivered' AND p.status <> 'sold') ORDER BY o.id LIMIT 1",
  )) as Array<{ id: number | string; status: string; petId: number | string; petStatus: string }>;
  if (astray) throw new BackupRefusedError(`order ${astray.id} is ${astray.status} but its pet ${astray.petId} is ${astray.petStatus}; nothing was restored`);
  const [miscounted] = (await runner.query(
    "SELECT a.id FROM accounts a WHERE a.placed_orders <> (SELECT COUNT(*) FROM orders o WHERE o.account_id = a.id AND o.status = 'placed') ORDER BY a.id LIMIT 1",
  )) as Array<{ id: number | string }>;
  if (miscounted) throw new BackupRefusedError(`account ${miscounted.id} counts another number of placed orders than it holds; nothing was restored`);
}
