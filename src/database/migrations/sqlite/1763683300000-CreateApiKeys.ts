import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateApiKeys1763683300000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE api_keys (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name VARCHAR(100) NOT NULL DEFAULT '',
        key_hash CHAR(64) NOT NULL UNIQUE,
        plan VARCHAR(16) NOT NULL CHECK (plan IN ('free', 'pro', 'business', 'enterprise')),
        per_minute INTEGER NULL,
        per_day INTEGER NULL,
        created_at DATETIME NOT NULL,
        revoked_at DATETIME NULL
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE api_keys');
  }
}
