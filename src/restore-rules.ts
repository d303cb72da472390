import { ACCOUNTS_RESTORE_RULES, API_KEYS_RESTORE_RULES } from './auth/auth.restore-rules';
import type { TableRestoreRules } from './database/backup/restore-rules';
import { IDEMPOTENCY_RECORDS_RESTORE_RULES } from './idempotency/idempotency.restore-rules';
import { ORDERS_RESTORE_RULES } from './orders/orders.restore-rules';
import { PETS_RESTORE_RULES } from './pets/pets.restore-rules';
import { API_KEY_USAGE_RESTORE_RULES } from './usage/usage.restore-rules';
// Loaded, not started, so that every module's scopes are declared as the service declares them: a restored key's are checked against them.
import './app.module';

/** The rules of every table of the service, each from the module that owns it; a module that adds a table adds its rules here. */
export const RESTORE_RULES: readonly TableRestoreRules[] = [ACCOUNTS_RESTORE_RULES, API_KEYS_RESTORE_RULES, IDEMPOTENCY_RECORDS_RESTORE_RULES, ORDERS_RESTORE_RULES, PETS_RESTORE_RULES, API_KEY_USAGE_RESTORE_RULES];
