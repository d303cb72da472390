import { ApiKey } from '../domain/api-key';
import { NewApiKey } from '../domain/api-key.repository';
import { ApiKeyOrmEntity } from './api-key.orm-entity';

export const ApiKeyMapper = {
  toDomain(row: ApiKeyOrmEntity): ApiKey {
    return {
      id: Number(row.id),
      name: row.name,
      plan: row.plan,
      customLimits:
        row.perMinute === null || row.perDay === null ? null : { perMinute: Number(row.perMinute), perDay: Number(row.perDay) },
      createdAt: new Date(row.createdAt),
      revokedAt: row.revokedAt ? new Date(row.revokedAt) : null,
      expiresAt: row.expiresAt ? new Date(row.expiresAt) : null,
      lastUsedAt: row.lastUsedAt ? new Date(row.lastUsedAt) : null,
    };
  },

  toPersistence(key: NewApiKey): Omit<ApiKeyOrmEntity, 'id'> {
    return {
      name: key.name,
      keyHash: key.keyHash,
      plan: key.plan,
      perMinute: key.customLimits?.perMinute ?? null,
      perDay: key.customLimits?.perDay ?? null,
      createdAt: key.createdAt,
      revokedAt: null,
      expiresAt: key.expiresAt,
      lastUsedAt: null,
      previousKeyHash: null,
      previousKeyExpiresAt: null,
    };
  },
};
