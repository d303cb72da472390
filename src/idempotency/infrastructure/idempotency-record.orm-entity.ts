import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * The `idempotency_records` table; its schema is owned by the migrations. The
 * primary key is the unique (API key, idempotency key) that claims insert on.
 */
@Entity({ name: 'idempotency_records' })
@Index('ix_idempotency_records_expires_at', ['expiresAt'])
export class IdempotencyRecordOrmEntity {
  @PrimaryColumn({ name: 'api_key_id', type: 'bigint' })
  apiKeyId: number;

  @PrimaryColumn({ name: 'idempotency_key', type: 'varchar', length: 255 })
  idempotencyKey: string;

  /** The operation that made the record (`POST /v1/pets`): the key is refused for any other. */
  @Column({ type: 'varchar', length: 255 })
  operation: string;

  @Column({ type: 'varchar', length: 64 })
  fingerprint: string;

  /** The claiming request's own token: only it may complete the claim. */
  @Column({ name: 'claim_token', type: 'varchar', length: 36, nullable: true })
  claimToken: string | null;

  @Column({ name: 'status_code', type: 'integer', nullable: true })
  statusCode: number | null;

  @Column({ name: 'response_body', type: 'text', nullable: true })
  responseBody: string | null;

  @Column({ name: 'response_location', type: 'varchar', length: 2048, nullable: true })
  responseLocation: string | null;

  /** Epoch milliseconds, from the injected clock rather than the database's. */
  @Column({ name: 'expires_at', type: 'bigint' })
  expiresAt: number;
}
