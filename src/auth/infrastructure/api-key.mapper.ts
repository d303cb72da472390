import { Account, ownAccountName } from '../domain/account';
import { ApiKey } from '../domain/api-key';
import { NewApiKey } from '../domain/api-key.repository';
import { AccountOrmEntity } from './account.orm-entity';
import { ApiKeyOrmEntity } from './api-key.orm-entity';

/** A key row as read: with its account joined, which holds the plan. */
export type ApiKeyWithAccountRow = ApiKeyOrmEntity & { account: AccountOrmEntity };

export const ApiKeyMapper = {
  toDomain(row: ApiKeyWithAccountRow): ApiKey {
    const { id, name, ownerKeyId, plan, customLimits } = ApiKeyMapper.accountToDomain(row.account);
    return {
      id: Number(row.id),
      name: row.name,
      account: { id, name, ownerKeyId },
      plan,
      customLimits,
      scopes: row.scopes.split(' ').filter(Boolean),
      createdAt: new Date(row.createdAt),
      revokedAt: row.revokedAt ? new Date(row.revokedAt) : null,
      expiresAt: row.expiresAt ? new Date(row.expiresAt) : null,
      lastUsedAt: row.lastUsedAt ? new Date(row.lastUsedAt) : null,
    };
  },

  accountToDomain(row: AccountOrmEntity): Account {
    const ownerKeyId = row.ownerKeyId === null ? null : Number(row.ownerKeyId);
    return {
      id: Number(row.id),
      name: row.name ?? ownAccountName(Number(ownerKeyId)),
      ownerKeyId,
      plan: row.plan,
      customLimits:
        row.perMinute === null || row.perDay === null ? null : { perMinute: Number(row.perMinute), perDay: Number(row.perDay) },
    };
  },

  toPersistence(key: NewApiKey, accountId: number): Omit<ApiKeyOrmEntity, 'id'> {
    return {
      name: key.name,
      keyHash: key.keyHash,
      accountId,
      scopes: key.scopes.join(' '),
      createdAt: key.createdAt,
      revokedAt: null,
      expiresAt: key.expiresAt,
      lastUsedAt: null,
      previousKeyHash: null,
      previousKeyExpiresAt: null,
    };
  },
};
