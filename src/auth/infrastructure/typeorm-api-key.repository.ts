import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { ApiKey } from '../domain/api-key';
import { ApiKeyRepository, NewApiKey } from '../domain/api-key.repository';
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

  async findByHash(keyHash: string): Promise<{ key: ApiKey; keyHash: string } | null> {
    const row = await this.rows.findOneBy({ keyHash });
    return row ? { key: ApiKeyMapper.toDomain(row), keyHash: row.keyHash } : null;
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

  async update(id: number, changes: Partial<Pick<ApiKey, 'plan' | 'customLimits' | 'revokedAt'>>): Promise<void> {
    const { customLimits, ...rest } = changes;
    const limits =
      'customLimits' in changes ? { perMinute: customLimits?.perMinute ?? null, perDay: customLimits?.perDay ?? null } : {};
    await this.rows.update({ id }, { ...rest, ...limits });
  }
}
