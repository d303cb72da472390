import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A key's own account names its key in `owner_key_id` and has no name; until
 * now it was known by its name `key-<id>`. Every account so named that holds
 * that very key becomes the key's own.
 */
export class OwnAccounts1763942400000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    // SQLite cannot make a column nullable in place: the table is made anew, which TypeORM runs with foreign keys off.
    await queryRunner.query(`
      CREATE TABLE accounts_new (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name VARCHAR(100) NULL UNIQUE,
        plan VARCHAR(16) NOT NULL CHECK (plan IN ('free', 'pro', 'business', 'enterprise')),
        per_minute INTEGER NULL,
        per_day INTEGER NULL,
        created_at DATETIME NOT NULL,
        owner_key_id INTEGER NULL REFERENCES api_keys (id) CHECK (owner_key_id IS NULL OR name IS NULL)
      )`);
    await queryRunner.query(`
      INSERT INTO accounts_new (id, name, plan, per_minute, per_day, created_at, owner_key_id)
      SELECT accounts.id, CASE WHEN own.id IS NULL THEN accounts.name END, accounts.plan, accounts.per_minute, accounts.per_day, accounts.created_at, own.id
      FROM accounts LEFT JOIN api_keys own ON own.account_id = accounts.id AND accounts.name = 'key-' || own.id`);
    await queryRunner.query('DROP TABLE accounts');
    await queryRunner.query('ALTER TABLE accounts_new RENAME TO accounts');
    await queryRunner.query('CREATE UNIQUE INDEX uq_accounts_owner_key_id ON accounts (owner_key_id)');
  }

  /**
   * Own accounts take back their names `key-<id>`. The name column stays
   * nullable: making it NOT NULL again would mean making the table anew, which
   * a revert cannot do (it runs in a transaction, where foreign keys stay on).
   */
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query("UPDATE accounts SET name = 'key-' || owner_key_id, owner_key_id = NULL WHERE owner_key_id IS NOT NULL");
    await queryRunner.query('DROP INDEX uq_accounts_owner_key_id');
    await queryRunner.query('ALTER TABLE accounts DROP COLUMN owner_key_id');
  }
}
