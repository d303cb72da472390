import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreatePets1763683200000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    // INTEGER PRIMARY KEY is SQLite's 64-bit rowid.
    await queryRunner.query(`
      CREATE TABLE pets (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name VARCHAR(255) NOT NULL,
        category_id INTEGER NOT NULL,
        status VARCHAR(16) NOT NULL DEFAULT 'available' CHECK (status IN ('available', 'pending', 'sold'))
      )`);
    await queryRunner.query('CREATE INDEX idx_pets_status_id ON pets (status, id)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE pets');
  }
}
