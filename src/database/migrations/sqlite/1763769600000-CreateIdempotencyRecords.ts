import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateIdempotencyRecords1763769600000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE idempotency_records (
        api_key_id INTEGER NOT NULL,
        idempotency_key VARCHAR(255) NOT NULL,
        fingerprint CHAR(64) NOT NULL,
        status_code INTEGER NULL,
        response_body TEXT NULL,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (api_key_id, idempotency_key)
      )`);
    await queryRunner.query('CREATE INDEX ix_idempotency_records_expires_at ON idempotency_records (expires_at)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE idempotency_records');
  }
}
