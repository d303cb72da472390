import { ORDERS_RESTORE_RULES } from './orders.restore-rules';

const HOUR = 3_600_000;
const placed = { id: 7, account_id: 1, pet_id: 3, status: 'placed', active_pet_id: 3, placed_at: 1_780_000_000_000, hold_until: 1_780_000_000_000 + HOUR, delivered_at: null, cancelled_at: null };

// The rules across tables are the integration spec's (test/orders-backup.int-spec.ts): they read the restored store.
describe("restore rules of the orders' table", () => {
  it('accept an order as the orders module writes it, placed, delivered or cancelled', async () => {
    await expect(ORDERS_RESTORE_RULES.checkRow(placed)).resolves.toBeUndefined();
    await expect(ORDERS_RESTORE_RULES.checkRow({ ...placed, status: 'delivered', delivered_at: placed.placed_at + 1 })).resolves.toBeUndefined();
    await expect(ORDERS_RESTORE_RULES.checkRow({ ...placed, status: 'cancelled', active_pet_id: null, cancelled_at: placed.hold_until })).resolves.toBeUndefined();
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['an id of 0', { id: 0 }, 'id must be an integer from 1 to 9007199254740991'],
    ['a status of its own', { status: 'shipped' }, 'status must be one of placed, delivered, cancelled'],
    ['a placed order holding another pet', { active_pet_id: 4 }, 'active_pet_id must be pet_id for a placed order'],
    ['a cancelled order still holding its pet', { status: 'cancelled', cancelled_at: placed.hold_until }, 'active_pet_id must be null for a cancelled order'],
    ['a placed order with a delivery time', { delivered_at: placed.hold_until }, 'delivered_at must be null for a placed order'],
    ['a delivered order without its time', { status: 'delivered' }, 'delivered_at must be a time in epoch milliseconds, not before placed_at'],
    ['a hold that ends before the order', { hold_until: placed.placed_at - 1 }, 'hold_until must not come before placed_at'],
    ['a time past what a Date holds', { placed_at: 9e15 }, 'placed_at must be a time in epoch milliseconds'],
  ])('refuse %s', async (_case, change, rule) => {
    await expect(ORDERS_RESTORE_RULES.checkRow({ ...placed, ...change } as never)).resolves.toBe(rule);
  });

});
