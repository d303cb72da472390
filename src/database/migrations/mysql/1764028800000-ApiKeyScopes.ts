import { MigrationInterface, QueryRunner } from 'typeorm';

/** What a key may do, as space-separated scopes; every existing key keeps doing all it did. */
export class ApiKeyScopes1764028800000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query("ALTER TABLE api_keys ADD COLUMN scopes VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin NOT NULL DEFAULT 'pets:read pets:write'");
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE api_keys DROP COLUMN scopes');
  }
}
