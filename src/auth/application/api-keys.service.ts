import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { Clock } from '../../config/clock';
import { Account, checkAccountName, checkJoinsOnSamePlan } from '../domain/account';
import { ApiKey, checkKeyName, checkPlan, checkPlanLimits } from '../domain/api-key';
import { AccountCreatedMeanwhileError, ApiKeyNotFoundError, InvalidApiKeyRequestError } from '../domain/api-key.errors';
import { ApiKeyRepository } from '../domain/api-key.repository';
import { generateApiKeySecret, hashApiKeySecret } from '../domain/api-key-secret';
import { Plan, PlanLimits } from '../domain/plan';
import { checkScopes, EVERY_SCOPE } from '../domain/scope';
import { PlanTable } from './plan-table';

export interface CreateApiKeyInput {
  plan: string;
  name?: string;
  /** The account to create the key in, or join; absent: an account of the key's own. */
  account?: string;
  perMinute?: number;
  perDay?: number;
  /** How long the key works, from now; absent: until revoked. */
  expiresInMs?: number;
  /** What the key may do; absent: every scope, those added later included. */
  scopes?: readonly string[];
}

export interface CreatedApiKey {
  key: ApiKey;
  /** The plaintext: returned this once and never stored. */
  secret: string;
}

/** The key life cycle: create (secret shown once, scoped, optionally expiring), list, change plan, roll the secret, revoke. */
@Injectable()
export class ApiKeysService {
  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly plans: PlanTable,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  async create(input: CreateApiKeyInput): Promise<CreatedApiKey> {
    const plan = checkPlan(input.plan);
    const customLimits = checkPlanLimits(plan, input);
    const scopes = input.scopes === undefined ? [EVERY_SCOPE] : checkScopes(input.scopes);
    const name = checkKeyName(input.name ?? '');
    const secret = this.newSecret();
    const now = this.clock.now();
    const expiresAt = input.expiresInMs === undefined ? null : new Date(now + input.expiresInMs);
    const store = async () => {
      const account = input.account === undefined ? undefined : await this.accountToJoin(input.account, plan, customLimits);
      return this.keys.create({ name, account, plan, customLimits, scopes, keyHash: hashApiKeySecret(secret), createdAt: new Date(now), expiresAt });
    };
    // Two commands creating one new account at once: the later finds it made by the earlier and joins it, plan checked.
    const key = await store().catch((error: unknown) => {
      if (error instanceof AccountCreatedMeanwhileError) return store();
      throw error;
    });
    return { key, secret };
  }

  /**
   * Gives a key a new secret and keeps everything else (id, plan, limits, and so
   * its rate-limit counters). The old secret works for `graceMs` more; 0 ends it now.
   */
  async roll(id: number, graceMs: number): Promise<CreatedApiKey & { previousUntil: Date | null }> {
    const key = await this.require(id);
    if (key.revokedAt) throw new InvalidApiKeyRequestError(`API key ${id} is revoked; make a new key instead`);
    const secret = this.newSecret();
    const previousUntil = graceMs > 0 ? new Date(this.clock.now() + graceMs) : null;
    await this.keys.replaceSecret(id, hashApiKeySecret(secret), previousUntil);
    return { key, secret, previousUntil };
  }

  list(): Promise<ApiKey[]> {
    return this.keys.list();
  }

  /** One key, revoked or not. */
  get(id: number): Promise<ApiKey> {
    return this.require(id);
  }

  findAccount(name: string): Promise<Account | null> {
    return this.keys.findAccount(name.trim());
  }

  async revoke(id: number): Promise<ApiKey> {
    const key = await this.require(id);
    if (key.revokedAt) return key;
    const revokedAt = new Date(this.clock.now());
    await this.keys.update(id, { revokedAt });
    return { ...key, revokedAt };
  }

  /** Changes the plan of the key's account: every key of the account gets it. */
  async setPlan(id: number, input: Pick<CreateApiKeyInput, 'plan' | 'perMinute' | 'perDay'>): Promise<ApiKey> {
    const key = await this.require(id);
    const plan = checkPlan(input.plan);
    const customLimits = checkPlanLimits(plan, input);
    await this.keys.updateAccount(key.account.id, { plan, customLimits });
    return { ...key, plan, customLimits };
  }

  /** The limits that apply to a key: its own numbers, or its plan's from configuration. */
  limitsOf(key: ApiKey): PlanLimits {
    return key.customLimits ?? this.plans.limitsOf(key.plan);
  }

  /** A plan's limits from configuration. */
  limitsOfPlan(plan: Plan): PlanLimits {
    return this.plans.limitsOf(plan);
  }

  /**
   * In development only, a store without any key gets a Pro key so that a new
   * user can call the API at once. Returns the new key, or null when none was made.
   */
  async provisionDevelopmentKey(): Promise<CreatedApiKey | null> {
    if (this.config.appEnv !== 'development' || (await this.keys.count()) > 0) return null;
    return this.create({ plan: 'pro', name: 'development' });
  }

  /** The checked name of the account a new key goes in; joining one needs its very plan. */
  private async accountToJoin(name: string, plan: Plan, customLimits: PlanLimits | null): Promise<string> {
    const existing = await this.keys.findAccount(name.trim());
    if (existing) checkJoinsOnSamePlan(existing, plan, customLimits);
    return checkAccountName(name, existing);
  }

  private newSecret(): string {
    return generateApiKeySecret(this.config.appEnv === 'production' ? 'live' : 'test');
  }

  private async require(id: number): Promise<ApiKey> {
    const key = await this.keys.findById(id);
    if (!key) throw new ApiKeyNotFoundError(id);
    return key;
  }
}
