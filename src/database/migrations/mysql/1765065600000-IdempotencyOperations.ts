import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Which operation a key's record belongs to, so the same key sent to another
 * is refused, and the Location of the first answer, which a replay carries.
 * Records kept before were all made by the one idempotent operation, createPet.
 */
export class IdempotencyOperations1765065600000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query("ALTER TABLE idempotency_records ADD COLUMN operation VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin NOT NULL DEFAULT 'POST /v1/pets'");
    await queryRunner.query('ALTER TABLE idempotency_records ADD COLUMN response_location VARCHAR(2048) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE idempotency_records DROP COLUMN response_location');
    await queryRunner.query('ALTER TABLE idempotency_records DROP COLUMN operation');
  }
}
