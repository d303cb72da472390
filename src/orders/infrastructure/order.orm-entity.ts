import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { OrderStatus } from '../domain/order';

/**
 * The `orders` table. Its schema is owned by the migrations, never synchronized
 * from this class. `active_pet_id` is the pet's id while the order is placed or
 * delivered and null once cancelled; its unique index is what lets a pet have
 * one such order only, whatever the number of instances (a check constraint
 * keeps it in step with `status`). Times are epoch milliseconds.
 */
@Entity({ name: 'orders' })
@Index('uq_orders_active_pet_id', ['activePetId'], { unique: true })
@Index('idx_orders_account_id_id', ['accountId', 'id'])
@Index('idx_orders_account_status_id', ['accountId', 'status', 'id'])
@Index('idx_orders_status_hold_until', ['status', 'holdUntil'])
export class OrderOrmEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'account_id', type: 'bigint' })
  accountId: number;

  @Column({ name: 'pet_id', type: 'bigint' })
  petId: number;

  @Column({ type: 'varchar', length: 16 })
  status: OrderStatus;

  @Column({ name: 'active_pet_id', type: 'bigint', nullable: true })
  activePetId: number | null;

  @Column({ name: 'placed_at', type: 'bigint' })
  placedAt: number;

  @Column({ name: 'hold_until', type: 'bigint' })
  holdUntil: number;

  @Column({ name: 'delivered_at', type: 'bigint', nullable: true })
  deliveredAt: number | null;

  @Column({ name: 'cancelled_at', type: 'bigint', nullable: true })
  cancelledAt: number | null;
}
