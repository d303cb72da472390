import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Orders, and each account's count of placed orders, which a placement raises
 * only below the plan's cap, in its own transaction. `active_pet_id` is the
 * pet's id while the order is placed or delivered, else null: its unique index
 * keeps a pet to one such order on every instance and node, and the check keeps
 * it in step with `status`. Times are epoch milliseconds.
 */
export class CreateOrders1765152000000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE orders (
        id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
        account_id BIGINT UNSIGNED NOT NULL,
        pet_id BIGINT UNSIGNED NOT NULL,
        status VARCHAR(16) NOT NULL,
        active_pet_id BIGINT UNSIGNED NULL,
        placed_at BIGINT UNSIGNED NOT NULL,
        hold_until BIGINT UNSIGNED NOT NULL,
        delivered_at BIGINT UNSIGNED NULL,
        cancelled_at BIGINT UNSIGNED NULL,
        PRIMARY KEY (id),
        UNIQUE KEY uq_orders_active_pet_id (active_pet_id),
        KEY idx_orders_account_id_id (account_id, id),
        KEY idx_orders_account_status_id (account_id, status, id),
        KEY idx_orders_status_hold_until (status, hold_until),
        CONSTRAINT fk_orders_account FOREIGN KEY (account_id) REFERENCES accounts (id),
        CONSTRAINT chk_orders_status CHECK (status IN ('placed', 'delivered', 'cancelled')),
        CONSTRAINT chk_orders_active_pet CHECK (
          (status IN ('placed', 'delivered') AND active_pet_id IS NOT NULL AND active_pet_id = pet_id) OR (status = 'cancelled' AND active_pet_id IS NULL)
        )
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`);
    await queryRunner.query('ALTER TABLE accounts ADD COLUMN placed_orders INT UNSIGNED NOT NULL DEFAULT 0');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE accounts DROP COLUMN placed_orders');
    await queryRunner.query('DROP TABLE orders');
  }
}
