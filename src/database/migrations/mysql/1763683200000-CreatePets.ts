import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreatePets1763683200000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE pets (
        id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
        name VARCHAR(255) NOT NULL,
        category_id BIGINT UNSIGNED NOT NULL,
        status VARCHAR(16) NOT NULL DEFAULT 'available',
        PRIMARY KEY (id),
        KEY idx_pets_status_id (status, id),
        CONSTRAINT chk_pets_status CHECK (status IN ('available', 'pending', 'sold'))
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE pets');
  }
}
