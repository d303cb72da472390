import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateApiKeys1763683300000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE api_keys (
        id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
        name VARCHAR(100) NOT NULL DEFAULT '',
        key_hash CHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
        plan VARCHAR(16) NOT NULL,
        per_minute INT UNSIGNED NULL,
        per_day INT UNSIGNED NULL,
        created_at DATETIME(3) NOT NULL,
        revoked_at DATETIME(3) NULL,
        PRIMARY KEY (id),
        UNIQUE KEY uq_api_keys_key_hash (key_hash),
        CONSTRAINT chk_api_keys_plan CHECK (plan IN ('free', 'pro', 'business', 'enterprise'))
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE api_keys');
  }
}
