import { Account, ownAccountName } from '../../src/auth/domain/account';
import { ApiKey } from '../../src/auth/domain/api-key';
import { ApiKeyRepository, NewApiKey, StoredApiKey } from '../../src/auth/domain/api-key.repository';

/** A store for unit specs of the auth module; counts lookups so caching can be observed. */
export class InMemoryApiKeyRepository extends ApiKeyRepository {
  readonly rows: Array<{ -readonly [K in keyof StoredApiKey]: StoredApiKey[K] }> = [];
  readonly accounts: Account[] = [];
  lookups = 0;

  async create(key: NewApiKey): Promise<ApiKey> {
    const id = this.rows.length + 1;
    let account = this.accounts.find((candidate) => candidate.name === key.account);
    if (!account) {
      const ownerKeyId = key.account === undefined ? id : null;
      account = { id: this.accounts.length + 1, name: key.account ?? ownAccountName(id), ownerKeyId, plan: key.plan, customLimits: key.customLimits };
      this.accounts.push(account);
    }
    const stored: ApiKey = {
      id,
      name: key.name,
      account: { id: account.id, name: account.name, ownerKeyId: account.ownerKeyId },
      plan: account.plan,
      customLimits: account.customLimits,
      scopes: key.scopes,
      createdAt: key.createdAt,
      revokedAt: null,
      expiresAt: key.expiresAt,
      lastUsedAt: null,
    };
    this.rows.push({ key: stored, keyHash: key.keyHash, previousKeyHash: null, previousKeyExpiresAt: null });
    return stored;
  }

  async findAccount(name: string) {
    return this.accounts.find((account) => account.name === name) ?? null;
  }

  async findByHash(keyHash: string) {
    this.lookups++;
    const row = this.rows.find((candidate) => candidate.keyHash === keyHash || candidate.previousKeyHash === keyHash);
    return row ? { ...row, key: this.withAccountPlan(row.key) } : null;
  }

  async findById(id: number) {
    const key = this.rows.find((row) => row.key.id === id)?.key;
    return key ? this.withAccountPlan(key) : null;
  }

  async list() {
    return this.rows.map((row) => this.withAccountPlan(row.key));
  }

  async count() {
    return this.rows.length;
  }

  async replaceSecret(id: number, keyHash: string, previousUntil: Date | null) {
    const row = this.rows.find((candidate) => candidate.key.id === id);
    if (!row) return;
    row.previousKeyHash = previousUntil && row.keyHash;
    row.previousKeyExpiresAt = previousUntil;
    row.keyHash = keyHash;
  }

  async recordLastUse(uses: ReadonlyMap<number, Date>) {
    for (const row of this.rows) {
      const at = uses.get(row.key.id);
      if (at && !(row.key.lastUsedAt && row.key.lastUsedAt >= at)) row.key = { ...row.key, lastUsedAt: at };
    }
  }

  async update(id: number, changes: Pick<ApiKey, 'revokedAt'>) {
    const row = this.rows.find((candidate) => candidate.key.id === id);
    if (row) row.key = { ...row.key, ...changes };
  }

  async updateAccount(accountId: number, changes: Pick<Account, 'plan' | 'customLimits'>) {
    const at = this.accounts.findIndex((account) => account.id === accountId);
    if (at >= 0) this.accounts[at] = { ...this.accounts[at], ...changes };
  }

  private withAccountPlan(key: ApiKey): ApiKey {
    const { plan, customLimits } = this.accounts.find((account) => account.id === key.account.id) as Account;
    return { ...key, plan, customLimits };
  }
}
