import { isPositiveSafeInteger, MAX_ID } from '../../http/validation';

/** A row as a backup holds it: column name to value. */
export type BackupRow = Record<string, string | number | null>;

/**
 * The rules of one table, which a restore checks every row of a backup
 * against before it writes anything. The module that owns the table declares
 * them by calling the rules its API and commands enforce, so a restore
 * accepts what they would accept and nothing more; a table without rules
 * cannot be restored.
 */
export interface TableRestoreRules {
  readonly table: string;
  /** The columns that name a row in a refusal: its id, never a secret. */
  readonly rowKey: readonly string[];
  /** The column whose ids the store hands out, if the table has one. */
  readonly numbered?: string;
  /** The first rule the row breaks, worded as the API or the command words it; undefined when it keeps them all. */
  checkRow(row: BackupRow): Promise<string | undefined>;
  /**
   * The first rule the table's rows break together, or with other tables'
   * (one order per pet, a count that must match): asked of the restored store
   * once every row is in, before anything is committed.
   */
  checkRestored?(query: RestoredRows): Promise<string | undefined>;
}

/** Runs a read-only statement on the store being restored, inside its restore's transaction. */
export type RestoredRows = (sql: string) => Promise<BackupRow[]>;

/** How many new ids a restored counter must leave below 2^53 - 1: far more than a store of this service creates. */
export const ID_HEADROOM = 2 ** 32;

/** The largest next id a restore sets: the ID_HEADROOM ids handed out from it are all ids every JSON client reads exactly. */
export const MAX_NEXT_ID = MAX_ID - ID_HEADROOM + 1;

/** The API's rule on ids, for each of the columns that holds one (null only where `nullable` says so). */
export function idProblem(row: BackupRow, columns: readonly string[], nullable: readonly string[] = []): string | undefined {
  const broken = columns.find((column) => !(row[column] === null && nullable.includes(column)) && !isPositiveSafeInteger(row[column]));
  return broken === undefined ? undefined : `${broken} must be an integer from 1 to ${MAX_ID}`;
}

/** A row as a refusal names it: `pets id 7`. */
export function describeRow(rules: TableRestoreRules, row: BackupRow): string {
  const key = rules.rowKey.map((column) => `${column} ${JSON.stringify(row[column])}`).join(', ');
  return key ? `${rules.table} ${key}` : rules.table;
}

/** Why a table's counter may not be set to `next`, or undefined. */
export function nextIdProblem(table: string, next: number): string | undefined {
  if (next <= MAX_NEXT_ID) return undefined;
  return `the next ${table} id would be ${next}, which leaves too few ids below 2^53 - 1 (at most ${MAX_NEXT_ID})`;
}
