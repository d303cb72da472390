import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A key's own account names its key in `owner_key_id` and has no name; until
 * now it was known by its name `key-<id>`. Every account so named that holds
 * that very key becomes the key's own.
 */
export class OwnAccounts1763942400000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE accounts
        MODIFY name VARCHAR(100) NULL,
        ADD COLUMN owner_key_id BIGINT UNSIGNED NULL AFTER name,
        ADD UNIQUE KEY uq_accounts_owner_key_id (owner_key_id),
        ADD CONSTRAINT fk_accounts_owner_key FOREIGN KEY (owner_key_id) REFERENCES api_keys (id),
        ADD CONSTRAINT chk_accounts_name_or_owner CHECK (name IS NULL OR owner_key_id IS NULL)`);
    await queryRunner.query(`
      UPDATE accounts JOIN api_keys ON api_keys.account_id = accounts.id AND accounts.name = CONCAT('key-', api_keys.id)
      SET accounts.owner_key_id = api_keys.id, accounts.name = NULL`);
  }

  /** Own accounts take back their names `key-<id>`. */
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE accounts DROP CONSTRAINT chk_accounts_name_or_owner');
    await queryRunner.query("UPDATE accounts SET name = CONCAT('key-', owner_key_id) WHERE owner_key_id IS NOT NULL");
    await queryRunner.query(`
      ALTER TABLE accounts
        DROP FOREIGN KEY fk_accounts_owner_key,
        DROP KEY uq_accounts_owner_key_id,
        DROP COLUMN owner_key_id,
        MODIFY name VARCHAR(100) NOT NULL`);
  }
}
