import { Account } from './account';
import { ApiKey } from './api-key';
import { Plan, PlanLimits } from './plan';
import { Scope } from './scope';

export interface NewApiKey {
  readonly name: string;
  /** The named account to put the key in, made with `plan` and `customLimits` if new; absent: an account of its own. */
  readonly account?: string;
  readonly plan: Plan;
  readonly customLimits: PlanLimits | null;
  readonly scopes: readonly Scope[];
  readonly keyHash: string;
  readonly createdAt: Date;
  readonly expiresAt: Date | null;
}

/** A key as the authenticator needs it: its secret's hash, and a rolled-over secret's during its grace. */
export interface StoredApiKey {
  readonly key: ApiKey;
  readonly keyHash: string;
  readonly previousKeyHash: string | null;
  readonly previousKeyExpiresAt: Date | null;
}

/** Port to the key store; the abstract class is also the injection token. */
export abstract class ApiKeyRepository {
  abstract create(key: NewApiKey): Promise<ApiKey>;
  abstract findAccount(name: string): Promise<Account | null>;
  /** The key whose current or previous secret has this hash, whether revoked or not. */
  abstract findByHash(keyHash: string): Promise<StoredApiKey | null>;
  abstract findById(id: number): Promise<ApiKey | null>;
  abstract list(): Promise<ApiKey[]>;
  abstract count(): Promise<number>;
  /**
   * Gives the key a new secret. The secret it had keeps working until
   * `previousUntil`, or ends at once when that is null; one rolled before ends now.
   */
  abstract replaceSecret(id: number, keyHash: string, previousUntil: Date | null): Promise<void>;
  /** Moves each key's last use forward to the given time; never backward, as instances write in any order. */
  abstract recordLastUse(uses: ReadonlyMap<number, Date>): Promise<void>;
  abstract update(id: number, changes: Pick<ApiKey, 'revokedAt'>): Promise<void>;
  /** Changes the plan of an account, so of all its keys. */
  abstract updateAccount(accountId: number, changes: Pick<Account, 'plan' | 'customLimits'>): Promise<void>;
}
