import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { PrimaryReads } from '../../database/database-reads';
import { isDuplicateKey } from '../../database/driver-errors';
import { UnitOfWork } from '../../database/unit-of-work';
import { Account, ownerKeyIdOf } from '../domain/account';
import { ApiKey } from '../domain/api-key';
import { AccountCreatedMeanwhileError } from '../domain/api-key.errors';
import { ApiKeyRepository, NewApiKey, StoredApiKey } from '../domain/api-key.repository';
import { AccountOrmEntity } from './account.orm-entity';
import { ApiKeyMapper, ApiKeyWithAccountRow } from './api-key.mapper';
import { ApiKeyOrmEntity } from './api-key.orm-entity';

/** Every read of a key joins its account, which holds the plan. */
const WITH_ACCOUNT = { account: true } as const;

@Injectable()
export class TypeOrmApiKeyRepository extends ApiKeyRepository {
  /** Transactions go through the unit of work, which keeps them apart from other statements on SQLite's one connection; `txHost.tx` is their EntityManager. */
  constructor(
    @InjectRepository(ApiKeyOrmEntity) private readonly rows: Repository<ApiKeyOrmEntity>,
    private readonly unitOfWork: UnitOfWork,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    // The key lookup is a read: on the reads' own pool, it goes on while writes are stalled.
    @Inject(PrimaryReads) private readonly reads: PrimaryReads = new PrimaryReads(rows.manager.connection),
  ) {
    super();
  }

  /** In one transaction: the account found or made, and the key; a key's own account then names its key. */
  create(key: NewApiKey): Promise<ApiKey> {
    return this.unitOfWork.run(async () => {
      const manager = this.txHost.tx;
      const accounts = manager.getRepository(AccountOrmEntity);
      let account = key.account === undefined ? null : await findAccountRow(accounts, key.account);
      if (!account) {
        const fresh = {
          name: key.account ?? null,
          ownerKeyId: null,
          plan: key.plan,
          perMinute: key.customLimits?.perMinute ?? null,
          perDay: key.customLimits?.perDay ?? null,
          createdAt: key.createdAt,
        };
        const inserted = await accounts.insert({ ...fresh }).catch((error: unknown) => {
          throw key.account !== undefined && isDuplicateKey(error) ? new AccountCreatedMeanwhileError(key.account) : error;
        });
        account = { ...fresh, id: Number(inserted.identifiers[0].id) };
      }
      const row = ApiKeyMapper.toPersistence(key, account.id);
      const result = await manager.getRepository(ApiKeyOrmEntity).insert({ ...row });
      const id = Number(result.identifiers[0].id);
      if (key.account === undefined) {
        // The two rows refer to each other, so the account learns its key's id once the key has one.
        account = { ...account, ownerKeyId: id };
        await accounts.update({ id: account.id }, { ownerKeyId: id });
      }
      return ApiKeyMapper.toDomain({ ...row, id, account });
    });
  }

  async findAccount(name: string): Promise<Account | null> {
    const row = await findAccountRow(this.rows.manager.getRepository(AccountOrmEntity), name);
    return row ? ApiKeyMapper.accountToDomain(row) : null;
  }

  /** Every request with a key not cached asks this: a database that cannot answer makes it a 503, never a 500. */
  async findByHash(keyHash: string): Promise<StoredApiKey | null> {
    const row = (await this.reads.read((manager) =>
      manager.getRepository(ApiKeyOrmEntity).findOne({ where: [{ keyHash }, { previousKeyHash: keyHash }], relations: WITH_ACCOUNT }),
    )) as ApiKeyWithAccountRow | null;
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
    const row = (await this.rows.findOne({ where: { id }, relations: WITH_ACCOUNT })) as ApiKeyWithAccountRow | null;
    return row ? ApiKeyMapper.toDomain(row) : null;
  }

  async list(): Promise<ApiKey[]> {
    const rows = (await this.rows.find({ order: { id: 'ASC' }, relations: WITH_ACCOUNT })) as ApiKeyWithAccountRow[];
    return rows.map(ApiKeyMapper.toDomain);
  }

  count(): Promise<number> {
    return this.rows.count();
  }

  async recordLastUse(uses: ReadonlyMap<number, Date>): Promise<void> {
    await this.unitOfWork.run(async () => {
      for (const [id, at] of uses) {
        await this.txHost.tx
          .createQueryBuilder()
          .update(ApiKeyOrmEntity)
          .set({ lastUsedAt: at })
          .where('id = :id AND (last_used_at IS NULL OR last_used_at < :at)', { id, at })
          .execute();
      }
    });
  }

  async update(id: number, changes: Pick<ApiKey, 'revokedAt'>): Promise<void> {
    await this.rows.update({ id }, changes);
  }

  async updateAccount(accountId: number, { plan, customLimits }: Pick<Account, 'plan' | 'customLimits'>): Promise<void> {
    const limits = { perMinute: customLimits?.perMinute ?? null, perDay: customLimits?.perDay ?? null };
    await this.rows.manager.getRepository(AccountOrmEntity).update({ id: accountId }, { plan, ...limits });
  }
}

/** An account by the name it is known by: a key's own account by its owner, any other by its name. */
function findAccountRow(accounts: Repository<AccountOrmEntity>, name: string): Promise<AccountOrmEntity | null> {
  const ownerKeyId = ownerKeyIdOf(name);
  return ownerKeyId === null ? accounts.findOneBy({ name }) : accounts.findOneBy({ ownerKeyId });
}
