import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A key made without `--scopes` holds `*`: every scope, those added later
 * included. Keys stored with the old default, every scope there was, were
 * made without `--scopes` and now hold `*`. (SQLite keeps the column's old
 * default, which no insert relies on: the service always writes the scopes.)
 */
export class EveryScope1765065700000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query("UPDATE api_keys SET scopes = '*' WHERE scopes = 'pets:read pets:write'");
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query("UPDATE api_keys SET scopes = 'pets:read pets:write' WHERE scopes = '*'");
  }
}
