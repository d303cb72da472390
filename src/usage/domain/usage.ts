/** The outcomes usage is counted by: the answer's status class, with 304 and 429 apart. */
export const USAGE_OUTCOMES = ['success', 'notModified', 'clientError', 'rateLimited', 'serverError'] as const;
export type UsageOutcome = (typeof USAGE_OUTCOMES)[number];

/** Answers of each outcome. */
export type OutcomeCounts = Record<UsageOutcome, number>;

/** 2xx (and any other status below 400 but 304), 304, 429, other 4xx, 5xx. */
export function usageOutcomeOf(status: number): UsageOutcome {
  if (status === 304) return 'notModified';
  if (status === 429) return 'rateLimited';
  if (status >= 500) return 'serverError';
  if (status >= 400) return 'clientError';
  return 'success';
}

export function noAnswers(): OutcomeCounts {
  return { success: 0, notModified: 0, clientError: 0, rateLimited: 0, serverError: 0 };
}

export function addCounts(into: OutcomeCounts, counts: OutcomeCounts): OutcomeCounts {
  for (const outcome of USAGE_OUTCOMES) into[outcome] += counts[outcome];
  return into;
}

/** A UTC day, `YYYY-MM-DD`. */
export type UsageDay = string;

export function usageDayOf(epochMs: number): UsageDay {
  return new Date(epochMs).toISOString().slice(0, 10);
}

/** The day `days` whole days after (or, negative, before) `day`. */
export function addDays(day: UsageDay, days: number): UsageDay {
  return usageDayOf(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000);
}

/** One key's answers on one UTC day. */
export interface UsageRow {
  readonly day: UsageDay;
  readonly keyId: number;
  readonly accountId: number;
  readonly counts: OutcomeCounts;
}

/** Days from `from` to `to`, both included. */
export interface DayRange {
  readonly from: UsageDay;
  readonly to: UsageDay;
}

/** The usage counts: added to in batches, read by key or account, pruned by age. A port; the adapter speaks each store's upsert. */
export abstract class UsageStore {
  /** Adds each row's counts to what the store holds for its key and day; returns the statements it took. */
  abstract add(rows: readonly UsageRow[]): Promise<number>;
  abstract findByKey(keyId: number, days: DayRange): Promise<UsageRow[]>;
  abstract findByAccount(accountId: number, days: DayRange): Promise<UsageRow[]>;
  /** Removes the days before `day`; returns how many rows went. */
  abstract removeBefore(day: UsageDay): Promise<number>;
}
