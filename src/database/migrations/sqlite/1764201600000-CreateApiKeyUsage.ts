import { MigrationInterface, QueryRunner } from 'typeorm';

/** Each key's answers per UTC day by outcome, added to in batches; the account is kept on the row so an account's report needs no join. */
export class CreateApiKeyUsage1764201600000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE api_key_usage (
        key_id INTEGER NOT NULL,
        day VARCHAR(10) NOT NULL,
        account_id INTEGER NOT NULL,
        success INTEGER NOT NULL DEFAULT 0,
        not_modified INTEGER NOT NULL DEFAULT 0,
        client_error INTEGER NOT NULL DEFAULT 0,
        rate_limited INTEGER NOT NULL DEFAULT 0,
        server_error INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (key_id, day)
      )
    `);
    await queryRunner.query('CREATE INDEX idx_api_key_usage_account_day ON api_key_usage (account_id, day)');
    await queryRunner.query('CREATE INDEX idx_api_key_usage_day ON api_key_usage (day)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE api_key_usage');
  }
}
