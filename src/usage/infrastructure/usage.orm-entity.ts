import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** The `api_key_usage` table: one row per key and UTC day. Its schema is owned by the migrations, not by this class. */
@Entity({ name: 'api_key_usage' })
@Index('idx_api_key_usage_account_day', ['accountId', 'day'])
@Index('idx_api_key_usage_day', ['day'])
export class UsageOrmEntity {
  @PrimaryColumn({ name: 'key_id', type: 'int' })
  keyId: number;

  /** `YYYY-MM-DD`, UTC. */
  @PrimaryColumn({ type: 'varchar', length: 10 })
  day: string;

  @Column({ name: 'account_id', type: 'int' })
  accountId: number;

  @Column({ type: 'int' })
  success: number;

  @Column({ name: 'not_modified', type: 'int' })
  notModified: number;

  @Column({ name: 'client_error', type: 'int' })
  clientError: number;

  @Column({ name: 'rate_limited', type: 'int' })
  rateLimited: number;

  @Column({ name: 'server_error', type: 'int' })
  serverError: number;
}
