import { MigrationInterface, QueryRunner } from 'typeorm';

/** Accounts hold the plan; every existing key gets an account of its own, named after the key, with the key's plan. */
export class CreateAccounts1763856000000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE accounts (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name VARCHAR(100) NOT NULL UNIQUE,
        plan VARCHAR(16) NOT NULL CHECK (plan IN ('free', 'pro', 'business', 'enterprise')),
        per_minute INTEGER NULL,
        per_day INTEGER NULL,
        created_at DATETIME NOT NULL
      )`);
    await queryRunner.query(`
      INSERT INTO accounts (name, plan, per_minute, per_day, created_at)
      SELECT 'key-' || id, plan, per_minute, per_day, created_at FROM api_keys ORDER BY id`);
    await queryRunner.query('ALTER TABLE api_keys ADD COLUMN account_id INTEGER NULL REFERENCES accounts (id)');
    await queryRunner.query("UPDATE api_keys SET account_id = (SELECT accounts.id FROM accounts WHERE accounts.name = 'key-' || api_keys.id)");
    await queryRunner.query('CREATE INDEX ix_api_keys_account_id ON api_keys (account_id)');
    for (const column of ['plan', 'per_minute', 'per_day']) await queryRunner.query(`ALTER TABLE api_keys DROP COLUMN ${column}`);
  }

  /** Each key takes back its account's plan. */
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query("ALTER TABLE api_keys ADD COLUMN plan VARCHAR(16) NOT NULL DEFAULT 'free'");
    await queryRunner.query('ALTER TABLE api_keys ADD COLUMN per_minute INTEGER NULL');
    await queryRunner.query('ALTER TABLE api_keys ADD COLUMN per_day INTEGER NULL');
    await queryRunner.query(`
      UPDATE api_keys SET
        plan = (SELECT plan FROM accounts WHERE accounts.id = api_keys.account_id),
        per_minute = (SELECT per_minute FROM accounts WHERE accounts.id = api_keys.account_id),
        per_day = (SELECT per_day FROM accounts WHERE accounts.id = api_keys.account_id)`);
    await queryRunner.query('DROP INDEX ix_api_keys_account_id');
    await queryRunner.query('ALTER TABLE api_keys DROP COLUMN account_id');
    await queryRunner.query('DROP TABLE accounts');
  }
}
