import { ApiKey } from './api-key';
import { Plan, PlanLimits } from './plan';

export interface NewApiKey {
  readonly name: string;
  readonly plan: Plan;
  readonly customLimits: PlanLimits | null;
  readonly keyHash: string;
  readonly createdAt: Date;
  readonly expiresAt: Date | null;
}

/** Port to the key store; the abstract class is also the injection token. */
export abstract class ApiKeyRepository {
  abstract create(key: NewApiKey): Promise<ApiKey>;
  /** The key with this hash and its stored hash, whether revoked or not. */
  abstract findByHash(keyHash: string): Promise<{ key: ApiKey; keyHash: string } | null>;
  abstract findById(id: number): Promise<ApiKey | null>;
  abstract list(): Promise<ApiKey[]>;
  abstract count(): Promise<number>;
  abstract update(id: number, changes: Partial<Pick<ApiKey, 'plan' | 'customLimits' | 'revokedAt'>>): Promise<void>;
}
