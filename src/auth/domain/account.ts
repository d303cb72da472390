import { AccountOnAnotherPlanError, InvalidApiKeyRequestError, InvalidNameError } from './api-key.errors';
import type { Plan, PlanLimits } from './plan';

/** Who pays: holds the plan (and an enterprise account's own numbers) that all its keys share. */
export interface Account {
  readonly id: number;
  readonly name: string;
  readonly plan: Plan;
  readonly customLimits: PlanLimits | null;
}

export const MAX_ACCOUNT_NAME_LENGTH = 100;

/** The name a key's own account gets when the key is made without naming an account. */
export function ownAccountName(keyId: number): string {
  return `key-${keyId}`;
}

/** A trimmed account name; a new account may not take a name kept for keys' own accounts. */
export function checkAccountName(name: string, existing: Account | null): string {
  const trimmed = name.trim();
  if (!trimmed || [...trimmed].length > MAX_ACCOUNT_NAME_LENGTH) {
    throw new InvalidNameError('account', MAX_ACCOUNT_NAME_LENGTH);
  }
  if (!existing && /^key-\d+$/.test(trimmed)) throw new InvalidApiKeyRequestError(`account names like "${trimmed}" are kept for keys' own accounts`);
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
