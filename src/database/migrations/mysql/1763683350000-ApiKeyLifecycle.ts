import { MigrationInterface, QueryRunner } from 'typeorm';

/** Expiry, last use, and the previous secret of a rolled key during its grace. */
export class ApiKeyLifecycle1763683350000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE api_keys
        ADD COLUMN expires_at DATETIME(3) NULL,
        ADD COLUMN last_used_at DATETIME(3) NULL,
        ADD COLUMN previous_key_hash CHAR(64) CHARACTER SET ascii COLLATE ascii_bin NULL,
        ADD COLUMN previous_key_expires_at DATETIME(3) NULL,
        ADD UNIQUE KEY uq_api_keys_previous_key_hash (previous_key_hash)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE api_keys
        DROP INDEX uq_api_keys_previous_key_hash,
        DROP COLUMN previous_key_expires_at,
        DROP COLUMN previous_key_hash,
        DROP COLUMN last_used_at,
        DROP COLUMN expires_at`);
  }
}
