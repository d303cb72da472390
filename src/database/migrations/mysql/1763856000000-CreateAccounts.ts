import { MigrationInterface, QueryRunner } from 'typeorm';

/** Accounts hold the plan; every existing key gets an account of its own, named after the key, with the key's plan. */
export class CreateAccounts1763856000000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE accounts (
        id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
        name VARCHAR(100) NOT NULL,
        plan VARCHAR(16) NOT NULL,
        per_minute INT UNSIGNED NULL,
        per_day INT UNSIGNED NULL,
        created_at DATETIME(3) NOT NULL,
        PRIMARY KEY (id),
        UNIQUE KEY uq_accounts_name (name),
        CONSTRAINT chk_accounts_plan CHECK (plan IN ('free', 'pro', 'business', 'enterprise'))
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`);
    await queryRunner.query(`
      INSERT INTO accounts (name, plan, per_minute, per_day, created_at)
      SELECT CONCAT('key-', id), plan, per_minute, per_day, created_at FROM api_keys ORDER BY id`);
    await queryRunner.query('ALTER TABLE api_keys ADD COLUMN account_id BIGINT UNSIGNED NULL');
    await queryRunner.query("UPDATE api_keys JOIN accounts ON accounts.name = CONCAT('key-', api_keys.id) SET api_keys.account_id = accounts.id");
    await queryRunner.query(`
      ALTER TABLE api_keys
        MODIFY account_id BIGINT UNSIGNED NOT NULL,
        ADD KEY ix_api_keys_account_id (account_id),
        ADD CONSTRAINT fk_api_keys_account FOREIGN KEY (account_id) REFERENCES accounts (id),
        DROP CONSTRAINT chk_api_keys_plan,
        DROP COLUMN plan,
        DROP COLUMN per_minute,
        DROP COLUMN per_day`);
  }

  /** Each key takes back its account's plan. */
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE api_keys
        ADD COLUMN plan VARCHAR(16) NOT NULL DEFAULT 'free',
        ADD COLUMN per_minute INT UNSIGNED NULL,
        ADD COLUMN per_day INT UNSIGNED NULL`);
    await queryRunner.query(`
      UPDATE api_keys JOIN accounts ON accounts.id = api_keys.account_id
      SET api_keys.plan = accounts.plan, api_keys.per_minute = accounts.per_minute, api_keys.per_day = accounts.per_day`);
    await queryRunner.query(`
      ALTER TABLE api_keys
        DROP FOREIGN KEY fk_api_keys_account,
        DROP KEY ix_api_keys_account_id,
        DROP COLUMN account_id,
        ADD CONSTRAINT chk_api_keys_plan CHECK (plan IN ('free', 'pro', 'business', 'enterprise'))`);
    await queryRunner.query('DROP TABLE accounts');
  }
}
