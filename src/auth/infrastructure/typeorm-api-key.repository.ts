import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { ApiKey } from '../domain/api-key';
import { ApiKeyRepository, NewApiKey, StoredApiKey } from '../domain/api-key.repository';
import { ApiKeyMapper } from './api-key.mapper';
import { ApiKeyOrmEntity } from './api-key.orm-entity';

@Injectable()
export class TypeOrmApiKeyRepository extends ApiKeyRepository {
  constructor(@InjectRepository(ApiKeyOrmEntity) private readonly rows: Repository<ApiKeyOrmEntity>) {
    super();
  }

  async create(key: NewApiKey): Promise<ApiKey> {
    const row = ApiKeyMapper.toPersistence(key);
    const result = await this.rows.insert(row);
    return ApiKeyMapper.toDomain({ ...row, id: Number(result.identifiers[0].id) });
  }

  async findByHash(keyHash: string): Promise<StoredApiKey | null> {
    const row = await this.rows.findOneBy([{ keyHash }, { previousKeyHash: keyHash }]);
    if (!row) return null;
    const previousKeyExpiresAt = row.previousKeyExpiresAt ? new Date(row.previousKeyExpiresAt) : null;
    return { key: ApiKeyMapper.toDomain(row), keyHash: row.keyHash, previousKeyHash: row.previousKeyHash, previousKeyExpiresAt };
  }

  async replaceSecret(id: number, keyHash: string, previousUntil: Date | null): Promise<void> {
    const current = await this.rows.findOne({ select: { keyHash: true }, where: { id } });
    if (!current) return;
    // Guarded by the hash just read, so a concurrent roll cannot make its secret the "previous" of this one unseen.
    const result = await this.rows.update(
      { id, keyHash: current.keyHash },
      { keyHash, previousKeyHash: previousUntil && current.keyHash, previousKeyExpiresAt: previousUntil },
    );
    if (!result.affected) throw new Error(`API key ${id} was rolled by someone else at the same time; try again`);
  }

  async findById(id: number): Promise<ApiKey | null> {
    const row = await this.rows.findOneBy({ id });
    return row ? ApiKeyMapper.toDomain(row) : null;
  }

  async list(): Promise<ApiKey[]> {
    return (await this.rows.find({ order: { id: 'ASC' } })).map(ApiKeyMapper.toDomain);
  }

  count(): Promise<number> {
    return this.rows.count();
  }

  async recordLastUse(uses: ReadonlyMap<number, Date>): Promise<void> {
    await this.rows.manager.transaction(async (manager) => {
      for (const [id, at] of uses) {
        await manager
          .createQueryBuilder()
          .update(ApiKeyOrmEntity)
          .set({ lastUsedAt: at })
          .where('id = :id AND (last_used_at IS NULL OR last_used_at < :at)', { id, at })
          .execute();
      }
    });
  }

  async update(id: number, changes: Partial<Pick<ApiKey, 'plan' | 'customLimits' | 'revokedAt'>>): Promise<void> {
    const { customLimits, ...rest } = changes;
    const limits =
      'customLimits' in changes ? { perMinute: customLimits?.perMinute ?? null, perDay: customLimits?.perDay ?? null } : {};
    await this.rows.update({ id }, { ...rest, ...limits });
  }
}
