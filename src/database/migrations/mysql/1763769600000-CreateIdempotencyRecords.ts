import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateIdempotencyRecords1763769600000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE idempotency_records (
        api_key_id BIGINT UNSIGNED NOT NULL,
        idempotency_key VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
        fingerprint CHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
        status_code SMALLINT UNSIGNED NULL,
        response_body TEXT NULL,
        expires_at BIGINT NOT NULL,
        PRIMARY KEY (api_key_id, idempotency_key),
        KEY ix_idempotency_records_expires_at (expires_at)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE idempotency_records');
  }
}
