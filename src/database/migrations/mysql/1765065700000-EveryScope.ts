import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A key made without `--scopes` holds `*`: every scope, those added later
 * included. Keys stored with the old default, every scope there was, were
 * made without `--scopes` and now hold `*`.
 */
export class EveryScope1765065700000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query("UPDATE api_keys SET scopes = '*' WHERE scopes = 'pets:read pets:write'");
    await queryRunner.query("ALTER TABLE api_keys ALTER COLUMN scopes SET DEFAULT '*'");
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query("ALTER TABLE api_keys ALTER COLUMN scopes SET DEFAULT 'pets:read pets:write'");
    await queryRunner.query("UPDATE api_keys SET scopes = 'pets:read pets:write' WHERE scopes = '*'");
  }
}
