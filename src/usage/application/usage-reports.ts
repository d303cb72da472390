import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { Clock } from '../../config/clock';
import { addCounts, addDays, DayRange, noAnswers, OutcomeCounts, UsageDay, UsageRow, UsageStore, usageDayOf } from '../domain/usage';
import { InvalidUsageRangeError } from '../domain/usage.errors';

/** The longest span one report covers. */
export const MAX_REPORT_DAYS = 366;
export const DEFAULT_REPORT_DAYS = 7;

/** The days a report asks for: the last `days` (today included), or `from` to `to` (both included, `to` default today). */
export interface UsageQuery {
  readonly days?: number;
  readonly from?: UsageDay;
  readonly to?: UsageDay;
}

export interface KeyUsage {
  readonly keyId: number;
  readonly counts: OutcomeCounts;
}

export interface DayUsage {
  readonly day: UsageDay;
  readonly total: OutcomeCounts;
  /** Each key that was answered that day, by id. */
  readonly keys: KeyUsage[];
}

/** Answers by outcome over a range of UTC days: in all, per key, and per day (days without answers left out). */
export interface UsageReport extends DayRange {
  readonly total: OutcomeCounts;
  readonly keys: KeyUsage[];
  readonly days: DayUsage[];
}

/** Usage of a key or of an account, as stored: figures are at most one flush late. */
@Injectable()
export class UsageReports {
  constructor(
    private readonly store: UsageStore,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  async forKey(keyId: number, query: UsageQuery = {}): Promise<UsageReport> {
    const range = this.rangeOf(query);
    return report(range, await this.store.findByKey(keyId, range));
  }

  async forAccount(accountId: number, query: UsageQuery = {}): Promise<UsageReport> {
    const range = this.rangeOf(query);
    return report(range, await this.store.findByAccount(accountId, range));
  }

  private rangeOf({ days, from, to }: UsageQuery): DayRange {
    const today = usageDayOf(this.clock.now());
    if (days !== undefined && (from !== undefined || to !== undefined)) throw new InvalidUsageRangeError('days cannot be combined with from or to');
    if (from === undefined) {
      const span = days ?? Math.min(DEFAULT_REPORT_DAYS, this.config.usageRetentionDays);
      if (!Number.isSafeInteger(span) || span < 1 || span > MAX_REPORT_DAYS) throw new InvalidUsageRangeError(`days must be an integer from 1 to ${MAX_REPORT_DAYS}`);
      const end = to ?? today;
      return { from: addDays(end, 1 - span), to: end };
    }
    const end = to ?? today;
    if (from > end) throw new InvalidUsageRangeError('from must not be after to');
    if (addDays(from, MAX_REPORT_DAYS - 1) < end) throw new InvalidUsageRangeError(`from and to may span at most ${MAX_REPORT_DAYS} days`);
    return { from, to: end };
  }
}

function report(range: DayRange, rows: readonly UsageRow[]): UsageReport {
  const total = noAnswers();
  const byKey = new Map<number, OutcomeCounts>();
  const byDay = new Map<UsageDay, DayUsage>();
  for (const row of rows) {
    addCounts(total, row.counts);
    const keyTotal = byKey.get(row.keyId) ?? noAnswers();
    byKey.set(row.keyId, addCounts(keyTotal, row.counts));
    let day = byDay.get(row.day);
    if (!day) byDay.set(row.day, (day = { day: row.day, total: noAnswers(), keys: [] }));
    addCounts(day.total, row.counts);
    day.keys.push({ keyId: row.keyId, counts: { ...row.counts } });
  }
  const keys = [...byKey].sort(([a], [b]) => a - b).map(([keyId, counts]) => ({ keyId, counts }));
  const days = [...byDay.values()].sort((a, b) => a.day.localeCompare(b.day));
  for (const day of days) day.keys.sort((a, b) => a.keyId - b.keyId);
  return { ...range, total, keys, days };
}
