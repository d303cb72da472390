import { AccountOnAnotherPlanError, InvalidApiKeyRequestError, InvalidNameError } from './api-key.errors';
import type { Plan, PlanLimits } from './plan';

/** Who pays: holds the plan (and an enterprise account's own numbers) that all its keys share. */
export interface Account {
  readonly id: number;
  /** What the account is known and joined by: the name it was created with, or `key-<id>` for a key's own account. */
  readonly name: string;
  /** The key this account was made for, with the key, when no account was named; null for an account created by name. */
  readonly ownerKeyId: number | null;
  readonly plan: Plan;
  readonly customLimits: PlanLimits | null;
}

export const MAX_ACCOUNT_NAME_LENGTH = 100;

/** The name a key's own account is known by. */
export function ownAccountName(keyId: number): string {
  return `key-${keyId}`;
}

/** The key whose own account a name like `key-<id>` stands for; null for any other name. */
export function ownerKeyIdOf(name: string): number | null {
  const match = /^key-(\d+)$/.exec(name);
  return match ? Number(match[1]) : null;
}

/** A trimmed account name; a new account may not take a name kept for keys' own accounts. */
export function checkAccountName(name: string, existing: Account | null): string {
  const trimmed = name.trim();
  if (!trimmed || [...trimmed].length > MAX_ACCOUNT_NAME_LENGTH) {
    throw new InvalidNameError('account', MAX_ACCOUNT_NAME_LENGTH);
  }
  if (!existing && ownerKeyIdOf(trimmed) !== null) {
    throw new InvalidApiKeyRequestError(`account names like "${trimmed}" are kept for keys' own accounts`);
  }
  return trimmed;
}

/** Joining an account takes its plan as it is: a different plan or different numbers is an error, not a change. */
export function checkJoinsOnSamePlan(account: Account, plan: Plan, customLimits: PlanLimits | null): void {
  const same =
    account.plan === plan &&
    account.customLimits?.perMinute === customLimits?.perMinute &&
    account.customLimits?.perDay === customLimits?.perDay;
  if (same) return;
  throw new AccountOnAnotherPlanError(account.name, describePlan(account.plan, account.customLimits), describePlan(plan, customLimits));
}

function describePlan(plan: Plan, limits: PlanLimits | null): string {
  return limits ? `plan ${plan} (${limits.perMinute}/minute, ${limits.perDay}/day)` : `plan ${plan}`;
}
