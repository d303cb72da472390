import { MigrationInterface, QueryRunner } from 'typeorm';

/** Each key's answers per UTC day by outcome, added to in batches; the account is kept on the row so an account's report needs no join. */
export class CreateApiKeyUsage1764201600000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE api_key_usage (
        key_id INT NOT NULL,
        day CHAR(10) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
        account_id INT NOT NULL,
        success INT UNSIGNED NOT NULL DEFAULT 0,
        not_modified INT UNSIGNED NOT NULL DEFAULT 0,
        client_error INT UNSIGNED NOT NULL DEFAULT 0,
        rate_limited INT UNSIGNED NOT NULL DEFAULT 0,
        server_error INT UNSIGNED NOT NULL DEFAULT 0,
        PRIMARY KEY (key_id, day),
        INDEX idx_api_key_usage_account_day (account_id, day),
        INDEX idx_api_key_usage_day (day)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE api_key_usage');
  }
}
