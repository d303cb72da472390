import { MigrationInterface, QueryRunner } from 'typeorm';

/** As on MySQL: orders, each account's count of placed orders, and one placed or delivered order per pet, held by a unique index. */
export class CreateOrders1765152000000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE orders (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        account_id INTEGER NOT NULL REFERENCES accounts (id),
        pet_id INTEGER NOT NULL,
        status VARCHAR(16) NOT NULL CHECK (status IN ('placed', 'delivered', 'cancelled')),
        active_pet_id INTEGER NULL,
        placed_at INTEGER NOT NULL,
        hold_until INTEGER NOT NULL,
        delivered_at INTEGER NULL,
        cancelled_at INTEGER NULL,
        CHECK ((status IN ('placed', 'delivered') AND active_pet_id IS NOT NULL AND active_pet_id = pet_id) OR (status = 'cancelled' AND active_pet_id IS NULL))
      )`);
    await queryRunner.query('CREATE UNIQUE INDEX uq_orders_active_pet_id ON orders (active_pet_id)');
    await queryRunner.query('CREATE INDEX idx_orders_account_id_id ON orders (account_id, id)');
    await queryRunner.query('CREATE INDEX idx_orders_account_status_id ON orders (account_id, status, id)');
    await queryRunner.query('CREATE INDEX idx_orders_status_hold_until ON orders (status, hold_until)');
    await queryRunner.query('ALTER TABLE accounts ADD COLUMN placed_orders INTEGER NOT NULL DEFAULT 0');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE accounts DROP COLUMN placed_orders');
    await queryRunner.query('DROP TABLE orders');
  }
}
