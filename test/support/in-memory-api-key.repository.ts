import { ApiKey } from '../../src/auth/domain/api-key';
import { ApiKeyRepository, NewApiKey } from '../../src/auth/domain/api-key.repository';

/** A store for unit specs of the auth module; counts lookups so caching can be observed. */
export class InMemoryApiKeyRepository extends ApiKeyRepository {
  readonly rows: Array<{ key: ApiKey; keyHash: string }> = [];
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
    this.rows.push({ key: stored, keyHash: key.keyHash });
    return stored;
  }

  async findByHash(keyHash: string) {
    this.lookups++;
    return this.rows.find((row) => row.keyHash === keyHash) ?? null;
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

  async update(id: number, changes: Partial<Pick<ApiKey, 'plan' | 'customLimits' | 'revokedAt'>>) {
    const row = this.rows.find((candidate) => candidate.key.id === id);
    if (row) row.key = { ...row.key, ...changes };
  }
}
