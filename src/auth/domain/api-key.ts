import type { Account } from './account';
import { isPlan, Plan, PlanLimits, PLANS } from './plan';
import { InvalidApiKeyRequestError, InvalidNameError, InvalidPlanLimitsError } from './api-key.errors';
import type { Scope } from './scope';

/** A client's credential. The secret itself is never kept: only its SHA-256 hash. */
export interface ApiKey {
  readonly id: number;
  readonly name: string;
  /** The account the key belongs to, which holds the plan all its keys share. */
  readonly account: Pick<Account, 'id' | 'name' | 'ownerKeyId'>;
  /** The account's plan. */
  readonly plan: Plan;
  /** The account's agreed limits (enterprise); otherwise the plan's apply. */
  readonly customLimits: PlanLimits | null;
  /** What the key may do, in the order the scopes were declared. */
  readonly scopes: readonly Scope[];
  readonly createdAt: Date;
  readonly revokedAt: Date | null;
  /** When the key stops working on its own; null: never. */
  readonly expiresAt: Date | null;
  /** When a request last came with the key, as recorded in batches; null: never. */
  readonly lastUsedAt: Date | null;
}

/** Whether the key's account is the one made with it, rather than one it created or joined by name. */
export function hasOwnAccount(key: ApiKey): boolean {
  return key.account.ownerKeyId === key.id;
}

/** Whether the key has reached its expiry at `now` (epoch ms). */
export function hasExpired(key: ApiKey, now: number): boolean {
  return key.expiresAt !== null && key.expiresAt.getTime() <= now;
}

export const MAX_KEY_NAME_LENGTH = 100;

/** A key's name as it is kept: trimmed, at most MAX_KEY_NAME_LENGTH characters. */
export function checkKeyName(name: string): string {
  const trimmed = name.trim();
  if ([...trimmed].length > MAX_KEY_NAME_LENGTH) throw new InvalidNameError('key', MAX_KEY_NAME_LENGTH);
  return trimmed;
}

/** A plan named by the command line (or a restored row): one of PLANS. */
export function checkPlan(plan: string): Plan {
  if (!isPlan(plan)) throw new InvalidApiKeyRequestError(`unknown plan "${plan}"; use one of ${PLANS.join(', ')}`);
  return plan;
}

/** The largest per-minute or per-day number an enterprise account may carry: both stores keep it in an unsigned 32-bit column. */
export const MAX_PLAN_LIMIT = 4_294_967_295;

/** Checks the plan/limits pairing: enterprise keys carry their own numbers, other plans never do. */
export function checkPlanLimits(plan: Plan, limits: Partial<PlanLimits>): PlanLimits | null {
  const given = limits.perMinute !== undefined || limits.perDay !== undefined;
  if (plan !== 'enterprise') {
    if (given) throw new InvalidPlanLimitsError('limits-on-other-plan');
    return null;
  }
  const { perMinute, perDay } = limits;
  if (!isPositiveInteger(perMinute) || !isPositiveInteger(perDay)) {
    throw new InvalidPlanLimitsError('enterprise-without-limits');
  }
  if (perMinute > perDay) throw new InvalidPlanLimitsError('minute-over-day');
  return { perMinute, perDay };
}

function isPositiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1 && value <= MAX_PLAN_LIMIT;
}

