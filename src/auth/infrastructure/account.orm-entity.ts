import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { Plan } from '../domain/plan';

/** The `accounts` table. Its schema is owned by the migrations, not by this class. */
@Entity({ name: 'accounts' })
export class AccountOrmEntity {
  @PrimaryGeneratedColumn()
  id: number;

  /** Null for a key's own account, which is known by its owner instead. */
  @Column({ type: 'varchar', length: 100, nullable: true })
  name: string | null;

  @Column({ name: 'owner_key_id', type: 'int', nullable: true })
  ownerKeyId: number | null;

  @Column({ type: 'varchar', length: 16 })
  plan: Plan;

  @Column({ name: 'per_minute', type: 'int', nullable: true })
  perMinute: number | null;

  @Column({ name: 'per_day', type: 'int', nullable: true })
  perDay: number | null;

  @Column({ name: 'created_at', type: 'datetime' })
  createdAt: Date;
}
