import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { PetStatus } from '../domain/pet-status';

/** The `pets` table. Its schema is owned by the migrations, not by this class. */
@Entity({ name: 'pets' })
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
