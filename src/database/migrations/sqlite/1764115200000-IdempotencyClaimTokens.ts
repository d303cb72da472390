import { MigrationInterface, QueryRunner } from 'typeorm';

/** Which request holds a claim, so only that request may renew, complete or release it. */
export class IdempotencyClaimTokens1764115200000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE idempotency_records ADD COLUMN claim_token VARCHAR(36) NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE idempotency_records DROP COLUMN claim_token');
  }
}
