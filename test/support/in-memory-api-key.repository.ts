import { ApiKey } from '../../src/auth/domain/api-key';
import { ApiKeyRepository, NewApiKey, StoredApiKey } from '../../src/auth/domain/api-key.repository';

/** A store for unit specs of the auth module; counts lookups so caching can be observed. */
export class InMemoryApiKeyRepository extends ApiKeyRepository {
  readonly rows: Array<{ -readonly [K in keyof StoredApiKey]: StoredApiKey[K] }> = [];
  lookups = 0;

  async create(key: NewApiKey): Promise<ApiKey> {
    const stored: ApiKey = {
      id: this.rows.length + 1,
      name: key.name,
      plan: key.plan,
      customLimits: key.customLimits,
      createdAt: key.createdAt,
      revokedAt: null,
      expiresAt: key.expiresAt,
      lastUsedAt: null,
    };
    this.rows.push({ key: stored, keyHash: key.keyHash, previousKeyHash: null, previousKeyExpiresAt: null });
    return stored;
  }

  async findByHash(keyHash: string) {
    this.lookups++;
    return this.rows.find((row) => row.keyHash === keyHash || row.previousKeyHash === keyHash) ?? null;
  }

  async findById(id: number) {
    return this.rows.find((row) => row.key.id === id)?.key ?? null;
  }

  async list() {
    return this.rows.map((row) => row.key);
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

  async update(id: number, changes: Partial<Pick<ApiKey, 'plan' | 'customLimits' | 'revokedAt'>>) {
    const row = this.rows.find((candidate) => candidate.key.id === id);
    if (row) row.key = { ...row.key, ...changes };
  }
}
