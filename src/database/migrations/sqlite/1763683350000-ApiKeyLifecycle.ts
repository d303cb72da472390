import { MigrationInterface, QueryRunner } from 'typeorm';

/** Expiry, last use, and the previous secret of a rolled key during its grace. */
export class ApiKeyLifecycle1763683350000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE api_keys ADD COLUMN expires_at DATETIME NULL');
    await queryRunner.query('ALTER TABLE api_keys ADD COLUMN last_used_at DATETIME NULL');
    await queryRunner.query('ALTER TABLE api_keys ADD COLUMN previous_key_hash CHAR(64) NULL');
    await queryRunner.query('ALTER TABLE api_keys ADD COLUMN previous_key_expires_at DATETIME NULL');
    await queryRunner.query('CREATE UNIQUE INDEX uq_api_keys_previous_key_hash ON api_keys (previous_key_hash)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX uq_api_keys_previous_key_hash');
    for (const column of ['previous_key_expires_at', 'previous_key_hash', 'last_used_at', 'expires_at']) {
      await queryRunner.query(`ALTER TABLE api_keys DROP COLUMN ${column}`);
    }
  }
}
