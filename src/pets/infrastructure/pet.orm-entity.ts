import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { PetStatus } from '../domain/pet-status';

/**
 * The `pets` table. Its schema is owned by the migrations, never synchronized
 * from this class; the index is declared so the entity says what serves a page.
 */
@Entity({ name: 'pets' })
@Index('idx_pets_status_id', ['status', 'id'])
export class PetOrmEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 255 })
  name: string;

  @Column({ name: 'category_id', type: 'bigint' })
  categoryId: number;

  @Column({ type: 'varchar', length: 16 })
  status: PetStatus;
}
