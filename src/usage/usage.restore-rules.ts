import { idProblem, type TableRestoreRules } from '../database/backup/restore-rules';
import { usageDayOf } from './domain/usage';

/** A real calendar day in the recorder's form (2026-02-30 is not one). */
function isUsageDay(day: unknown): boolean {
  if (typeof day !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(day)) return false;
  const start = Date.parse(`${day}T00:00:00Z`);
  return !Number.isNaN(start) && usageDayOf(start) === day;
}

const COUNT_COLUMNS = ['success', 'not_modified', 'client_error', 'rate_limited', 'server_error'] as const;

/** A usage row as the recorder writes it: a key and its account, a real UTC day, and counts that are whole and not negative. */
export const API_KEY_USAGE_RESTORE_RULES: TableRestoreRules = {
  table: 'api_key_usage',
  rowKey: ['key_id', 'day'],
  async checkRow(row) {
    const id = idProblem(row, ['key_id', 'account_id']);
    if (id) return id;
    if (!isUsageDay(row.day)) return 'day must be a UTC date written YYYY-MM-DD';
    const count = COUNT_COLUMNS.find((column) => !Number.isSafeInteger(row[column]) || (row[column] as number) < 0);
    return count === undefined ? undefined : `${count} must be a whole number of answers, 0 or more`;
  },
};
