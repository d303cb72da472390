import { Column, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { AccountOrmEntity } from './account.orm-entity';

/** The `api_keys` table. Its schema is owned by the migrations, not by this class. */
@Entity({ name: 'api_keys' })
export class ApiKeyOrmEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ name: 'key_hash', type: 'varchar', length: 64 })
  keyHash: string;

  @Column({ name: 'account_id', type: 'int' })
  accountId: number;

  @ManyToOne(() => AccountOrmEntity)
  @JoinColumn({ name: 'account_id' })
  account?: AccountOrmEntity;

  /** The key's scopes, separated by spaces as in OAuth 2.0 (RFC 6749, section 3.3). */
  @Column({ type: 'varchar', length: 255 })
  scopes: string;

  @Column({ name: 'created_at', type: 'datetime' })
  createdAt: Date;

  @Column({ name: 'revoked_at', type: 'datetime', nullable: true })
  revokedAt: Date | null;

  @Column({ name: 'expires_at', type: 'datetime', nullable: true })
  expiresAt: Date | null;

  @Column({ name: 'previous_key_hash', type: 'varchar', length: 64, nullable: true })
  previousKeyHash: string | null;

  @Column({ name: 'previous_key_expires_at', type: 'datetime', nullable: true })
  previousKeyExpiresAt: Date | null;

  @Column({ name: 'last_used_at', type: 'datetime', nullable: true })
  lastUsedAt: Date | null;
}
