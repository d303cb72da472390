import { idProblem, type TableRestoreRules } from '../database/backup/restore-rules';
import { checkAccountName } from './domain/account';
import { checkKeyName, checkPlan, checkPlanLimits } from './domain/api-key';
import { InvalidApiKeyRequestError } from './domain/api-key.errors';
import { isApiKeyHash } from './domain/api-key-secret';
import { checkHeldScopes } from './domain/scope';

/** The message of the first of the domain's checks that refuses, as the keys command would say it. */
function firstRefusal(...checks: Array<() => unknown>): string | undefined {
  for (const check of checks) {
    try {
      check();
    } catch (error) {
      if (error instanceof InvalidApiKeyRequestError) return error.message;
      throw error;
    }
  }
  return undefined;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** An account as `keys create` and `keys set-plan` make it: a name or an owner key, a plan, and numbers of its own on enterprise only. */
export const ACCOUNTS_RESTORE_RULES: TableRestoreRules = {
  table: 'accounts',
  rowKey: ['id'],
  numbered: 'id',
  async checkRow(row) {
    const ids = idProblem(row, ['id', 'owner_key_id'], ['owner_key_id']);
    if (ids) return ids;
    if ((row.name === null) === (row.owner_key_id === null)) return 'an account has a name or an owner key, not both or neither';
    const name = row.name === null ? undefined : accountNameProblem(text(row.name));
    if (name) return name;
    const limit = (value: string | number | null) => (value === null ? undefined : (value as number));
    return firstRefusal(
      () => checkPlan(text(row.plan)),
      () => checkPlanLimits(checkPlan(text(row.plan)), { perMinute: limit(row.per_minute), perDay: limit(row.per_day) }),
    );
  },
};

/** The rule on a new account's name, which is kept as checked (trimmed). */
function accountNameProblem(name: string): string | undefined {
  let kept = name;
  const refused = firstRefusal(() => (kept = checkAccountName(name, null)));
  return refused ?? (kept === name ? undefined : "an account's name has no white space around it");
}

/** A key as `keys create` and `keys roll` leave it: a name, a well-formed hash (and a rolled key's previous one with its end), known scopes. */
export const API_KEYS_RESTORE_RULES: TableRestoreRules = {
  table: 'api_keys',
  rowKey: ['id'],
  numbered: 'id',
  async checkRow(row) {
    const ids = idProblem(row, ['id', 'account_id']);
    if (ids) return ids;
    if (typeof row.name !== 'string') return "a key's name is text";
    let name = row.name;
    const refused = firstRefusal(
      () => (name = checkKeyName(text(row.name))),
      () => checkHeldScopes(typeof row.scopes === 'string' ? row.scopes.split(' ') : []),
    );
    if (refused) return refused;
    if (name !== row.name) return "a key's name has no white space around it";
    if (!isApiKeyHash(row.key_hash)) return 'key_hash must be a SHA-256 hash in 64 lower-case hex digits';
    if (row.previous_key_hash !== null && !isApiKeyHash(row.previous_key_hash)) {
      return 'previous_key_hash must be a SHA-256 hash in 64 lower-case hex digits';
    }
    if ((row.previous_key_hash === null) !== (row.previous_key_expires_at === null)) {
      return 'a rolled key has both its previous hash and when that hash stops working, or neither';
    }
    return undefined;
  },
};
