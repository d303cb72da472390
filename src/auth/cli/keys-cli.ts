import { parseArgs } from 'node:util';
import { ApiKeysService } from '../application/api-keys.service';
import { MAX_ACCOUNT_NAME_LENGTH } from '../domain/account';
import { ApiKey, checkPlanLimits, hasOwnAccount, MAX_KEY_NAME_LENGTH, MAX_PLAN_LIMIT } from '../domain/api-key';
import { isPlan, type Plan, PLANS } from '../domain/plan';
import { AccountOnAnotherPlanError, InvalidNameError, InvalidPlanLimitsError, type PlanLimitsProblem } from '../domain/api-key.errors';
import { parseDuration } from '../domain/duration';
import { allScopes, EVERY_SCOPE } from '../domain/scope';
import { KeyChange, KeyChangeChannel, NoKeyChangeChannel } from '../domain/key-change';
import { KEY_CHANGES_HOLD_WITHIN_SECONDS } from '../application/api-key-authenticator';
import type { UsageQuery, UsageReport, UsageReports } from '../../usage/application/usage-reports';

/** The help text; the scopes are those the service's modules declare. */
export const usage = (): string => `Usage: npm run keys -- <command>
  create --plan <free|pro|business|enterprise> [--name LABEL] [--account NAME] [--per-minute N --per-day N]
         [--scopes SCOPE,...] [--expires-in DURATION]
  list [--json]
  roll <id> [--grace DURATION] [--json]   new secret; the old one works for the grace (default 24h, 0s: ends now)
  revoke <id>
  set-plan <id> --plan <plan> [--per-minute N --per-day N]   changes the plan of the key's account
  usage <id> [--days N | --from YYYY-MM-DD [--to YYYY-MM-DD]] [--json]   a key's answers per UTC day by outcome
  usage --account NAME [--days N | --from ... --to ...] [--json]        an account's, and each of its keys'
With REDIS_URL set, revoke, roll --grace 0s and set-plan are told to every instance through Redis and
apply within 1 second; without Redis (or with Redis down) they apply within ${KEY_CHANGES_HOLD_WITHIN_SECONDS} seconds, as each instance's
cache lapses. Each command says which applied.
An account's keys share its plan and one quota: --account creates the account or joins it
(with its very plan); without it a key gets an account of its own.
--per-minute and --per-day are for enterprise keys, which need both.
--scopes names what the key may do, of ${allScopes().join(', ')}; without it the key may do all,
the operations added later included (listed as ${EVERY_SCOPE}).
A key keeps its scopes when rolled.
With --json, list prints one JSON array; create and roll print one object with id and key; usage one report.
A DURATION is a whole number with s, m, h or d: 30s, 15m, 12h, 90d.`;

const DEFAULT_GRACE_MS = 24 * 3_600_000;

/** Wrong use of the command line itself, whatever the store holds: one line, exit code 2. */
export class UsageError extends Error {}

/** A request the service refused on what the store holds, worded in the command line's flags: one line, exit code 1. */
export class RefusedError extends Error {}

const PLAN_LIMITS_FLAGS: Readonly<Record<PlanLimitsProblem, string>> = {
  'limits-on-other-plan': '--per-minute and --per-day apply to enterprise keys only',
  'enterprise-without-limits': `an enterprise key needs --per-minute N and --per-day N (integers from 1 to ${MAX_PLAN_LIMIT})`,
  'minute-over-day': '--per-minute cannot be larger than --per-day',
};

/** The service's refusals that name a field or a change, said with the flag or the command that sets it. */
export function inCommandLineTerms(error: unknown): unknown {
  if (error instanceof InvalidPlanLimitsError) return new UsageError(PLAN_LIMITS_FLAGS[error.problem]);
  if (error instanceof InvalidNameError) {
    const message = error.of === 'key' ? `--name must have at most ${error.maxLength} characters` : `--account needs a name of 1 to ${error.maxLength} characters`;
    return new UsageError(message);
  }
  if (error instanceof AccountOnAnotherPlanError) {
    return new RefusedError(`account "${error.accountName}" is on ${error.accountPlan}, not ${error.requestedPlan}; use set-plan to change it`);
  }
  return error;
}

export interface CliOutput {
  line(text: string): void;
}

function toCount(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,15}$/.test(value) || Number(value) < 1 || Number(value) > MAX_PLAN_LIMIT) {
    throw new UsageError(`--${flag} must be an integer from 1 to ${MAX_PLAN_LIMIT}`);
  }
  return Number(value);
}

function toDuration(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = parseDuration(value);
  if (ms === null) throw new UsageError(`--${flag} must be a duration such as 30s, 15m, 12h or 90d, not "${value}"`);
  return ms;
}

function toScopes(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const names = value.split(',').map((name) => name.trim());
  const known = allScopes();
  const unknown = names.find((name) => !known.includes(name));
  if (unknown !== undefined) throw new UsageError(`--scopes takes ${known.join(', ')} (comma-separated), not "${unknown}"`);
  return names;
}

function toId(value: string | undefined): number {
  if (value === undefined) throw new UsageError('an API key id is required');
  if (!/^\d{1,15}$/.test(value) || Number(value) < 1) throw new UsageError(`"${value}" is not an API key id`);
  return Number(value);
}

/** What some commands need besides the keys: usage reports, and the channel that tells instances of a change. */
export interface KeysCliServices {
  readonly usage?: UsageReports;
  readonly changes?: KeyChangeChannel;
}

/** One command of the key command line, checked whole: what is left to go wrong is the store's to say. */
export type KeysCommand = (keys: ApiKeysService, out: CliOutput, services?: KeysCliServices) => Promise<void>;

/** Tells the instances of a change, and says within what time it holds on every one. */
async function applyWithin(services: KeysCliServices, change: KeyChange): Promise<string> {
  const told = await (services.changes ?? new NoKeyChangeChannel()).publish(change);
  return told ? 'within 1 second (told through Redis)' : `within ${KEY_CHANGES_HOLD_WITHIN_SECONDS} seconds, as each one's cache lapses (not told through Redis)`;
}

/** Runs one command of the key command line against the service's own modules. */
export async function runKeysCli(argv: string[], keys: ApiKeysService, out: CliOutput, services: KeysCliServices = {}): Promise<void> {
  await parseKeysCommand(argv)(keys, out, services).catch((error: unknown) => {
    throw inCommandLineTerms(error);
  });
}

function toPlan(value: string | undefined, command: string): Plan {
  if (!value) throw new UsageError(`${command} needs --plan`);
  if (!isPlan(value)) throw new UsageError(`--plan must be one of ${PLANS.join(', ')}, not "${value}"`);
  return value;
}

/** The plan's numbers as the flags give them, refused here when the two cannot go together whatever the store holds. */
function toPlanLimits(plan: Plan, limits: { perMinute?: number; perDay?: number }): void {
  try {
    checkPlanLimits(plan, limits);
  } catch (error) {
    if (error instanceof InvalidPlanLimitsError) throw new UsageError(PLAN_LIMITS_FLAGS[error.problem]);
    throw error;
  }
}

function checkNames(name: string | undefined, account: string | undefined): void {
  if (name !== undefined && [...name.trim()].length > MAX_KEY_NAME_LENGTH) throw new UsageError(`--name must have at most ${MAX_KEY_NAME_LENGTH} characters`);
  const accountLength = account === undefined ? 1 : [...account.trim()].length;
  if (accountLength < 1 || accountLength > MAX_ACCOUNT_NAME_LENGTH) throw new UsageError(`--account needs a name of 1 to ${MAX_ACCOUNT_NAME_LENGTH} characters`);
}

/**
 * Reads and checks a whole command line before any store is opened: anything
 * malformed is a UsageError (exit 2), whether the store is up or not; the
 * command it returns fails only on what the store holds (exit 1).
 */
export function parseKeysCommand(argv: string[]): KeysCommand {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        plan: { type: 'string' },
        name: { type: 'string' },
        account: { type: 'string' },
        'per-minute': { type: 'string' },
        'per-day': { type: 'string' },
        'expires-in': { type: 'string' },
        scopes: { type: 'string' },
        grace: { type: 'string' },
        json: { type: 'boolean' },
        days: { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0]);
  }
  const { positionals, values } = parsed;
  const [command, ...rest] = positionals;
  const limits = { perMinute: toCount('per-minute', values['per-minute']), perDay: toCount('per-day', values['per-day']) };
  const expectArguments = (count: number) => {
    if (rest.length > count) throw new UsageError(`unexpected argument "${rest[count]}"`);
  };

  switch (command) {
    case 'create': {
      expectArguments(0);
      const plan = toPlan(values.plan, 'create');
      toPlanLimits(plan, limits);
      checkNames(values.name, values.account);
      const expiresInMs = toDuration('expires-in', values['expires-in']);
      const scopes = toScopes(values.scopes);
      return async (keys, out) => {
        const { key, secret } = await keys.create({ plan, name: values.name, account: values.account, ...limits, scopes, expiresInMs });
        if (values.json) return out.line(JSON.stringify({ id: key.id, key: secret }));
        out.line(`Created API key ${key.id}: ${describeKey(key, keys)}.`);
        return showSecretOnce(secret, out);
      };
    }
    case 'roll': {
      expectArguments(1);
      const id = toId(rest[0]);
      const graceMs = toDuration('grace', values.grace) ?? DEFAULT_GRACE_MS;
      return async (keys, out, services = {}) => {
        const { key, secret, previousUntil } = await keys.roll(id, graceMs);
        if (values.json) return out.line(JSON.stringify({ id: key.id, key: secret }));
        const old = previousUntil
          ? `the old key works until ${iso(previousUntil)}`
          : `every instance refuses the old key ${await applyWithin(services, { keyId: key.id })}`;
        out.line(`Rolled API key ${key.id} (${describeKey(key, keys)}); ${old}.`);
        return showSecretOnce(secret, out);
      };
    }
    case 'list': {
      expectArguments(0);
      return async (keys, out) => {
        const list = await keys.list();
        if (values.json) return out.line(JSON.stringify(list.map((key) => toJson(key, keys))));
        for (const row of formatTable(list, keys)) out.line(row);
      };
    }
    case 'revoke': {
      expectArguments(1);
      const id = toId(rest[0]);
      return async (keys, out, services = {}) => {
        const key = await keys.revoke(id);
        out.line(`Revoked API key ${key.id}; every instance refuses it ${await applyWithin(services, { keyId: key.id })}.`);
      };
    }
    case 'set-plan': {
      expectArguments(1);
      const id = toId(rest[0]);
      const plan = toPlan(values.plan, 'set-plan');
      toPlanLimits(plan, limits);
      return async (keys, out, services = {}) => {
        const key = await keys.setPlan(id, { plan, ...limits });
        const everyKey = hasOwnAccount(key) ? '' : ' to every key of the account';
        out.line(`API key ${key.id} is now ${describeKey(key, keys)}; the change applies${everyKey} ${await applyWithin(services, { accountId: key.account.id })}.`);
      };
    }
    case 'usage': {
      const query = toUsageQuery(values);
      const account = values.account;
      if (account !== undefined) {
        expectArguments(0);
        return async (keys, out, services = {}) => {
          const reports = usageReports(services);
          const found = await keys.findAccount(account);
          if (!found) throw new RefusedError(`no account named "${account.trim()}"`);
          const report = await reports.forAccount(found.id, query);
          if (values.json) return out.line(JSON.stringify({ account: { id: found.id, name: found.name }, ...reportJson(report) }));
          out.line(`Usage of account "${found.name}" (id ${found.id}), UTC days ${report.from} to ${report.to}:`);
          return formatUsage(report, true).forEach((row) => out.line(row));
        };
      }
      expectArguments(1);
      const id = toId(rest[0]);
      return async (keys, out, services = {}) => {
        const reports = usageReports(services);
        const key = await keys.get(id);
        const report = await reports.forKey(key.id, query);
        if (values.json) return out.line(JSON.stringify({ key: { id: key.id, name: key.name }, account: { id: key.account.id, name: key.account.name }, ...reportJson(report) }));
        out.line(`Usage of API key ${key.id} (account "${key.account.name}"), UTC days ${report.from} to ${report.to}:`);
        return formatUsage(report, false).forEach((row) => out.line(row));
      };
    }
    default:
      throw new UsageError(command ? `unknown command "${command}"` : 'a command is required');
  }
}

function showSecretOnce(secret: string, out: CliOutput): void {
  out.line('It is shown once, now; only its hash is stored. The key:');
  out.line(secret);
}

function describeKey(key: ApiKey, keys: ApiKeysService): string {
  const { perMinute, perDay } = keys.limitsOf(key);
  const name = key.name ? `, name "${key.name}"` : '';
  const expiry = key.expiresAt ? `, expires ${iso(key.expiresAt)}` : '';
  // A key's own account goes unmentioned: only an account made or joined by name is news.
  const account = hasOwnAccount(key) ? '' : `, account "${key.account.name}"`;
  // Only a key that may do less than everything says so.
  const scopes = key.scopes.includes(EVERY_SCOPE) ? '' : `, scopes ${key.scopes.join(',')}`;
  return `plan ${key.plan}, ${perMinute}/minute, ${perDay}/day${name}${account}${scopes}${expiry}`;
}

/** The machine-readable form of `list`: every field a script needs, dates in ISO 8601 or null. */
function toJson(key: ApiKey, keys: ApiKeysService) {
  const isoOrNull = (date: Date | null) => date?.toISOString() ?? null;
  return {
    id: key.id,
    name: key.name,
    account: key.account.name,
    plan: key.plan,
    ...keys.limitsOf(key),
    scopes: key.scopes,
    createdAt: key.createdAt.toISOString(),
    expiresAt: isoOrNull(key.expiresAt),
    revokedAt: isoOrNull(key.revokedAt),
    lastUsedAt: isoOrNull(key.lastUsedAt),
  };
}

function formatTable(list: ApiKey[], keys: ApiKeysService): string[] {
  if (!list.length) return ['No API keys.'];
  const rows = [
    ['ID', 'NAME', 'PLAN', 'PER MINUTE', 'PER DAY', 'SCOPES', 'CREATED', 'EXPIRES', 'REVOKED', 'LAST USED', 'ACCOUNT'],
    ...list.map((key) => {
      const { perMinute, perDay } = keys.limitsOf(key);
      const cells = [String(key.id), key.name || '-', key.plan, String(perMinute), String(perDay), key.scopes.join(',')];
      const lastUsed = key.lastUsedAt ? `${key.lastUsedAt.toISOString().slice(0, 16)}Z` : 'never';
      return [...cells, iso(key.createdAt), orDash(key.expiresAt), orDash(key.revokedAt), lastUsed, key.account.name];
    }),
  ];
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => [...row[column]].length)));
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column])).join('  ').trimEnd());
}

function orDash(date: Date | null): string {
  return date ? iso(date) : '-';
}

function iso(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function usageReports(services: KeysCliServices): UsageReports {
  if (!services.usage) throw new Error('usage needs the usage reports');
  return services.usage;
}

function toUsageQuery(values: { days?: string; from?: string; to?: string }): UsageQuery {
  const days = values.days === undefined ? undefined : /^\d{1,4}$/.test(values.days) ? Number(values.days) : NaN;
  if (Number.isNaN(days)) throw new UsageError(`--days must be a whole number of days, not "${values.days}"`);
  for (const flag of ['from', 'to'] as const) {
    const day = values[flag];
    if (day !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(day)) throw new UsageError(`--${flag} must be a date YYYY-MM-DD, not "${day}"`);
  }
  return { days, from: values.from, to: values.to };
}

/** The report as `GET /v1/usage` words it, keys by id. */
function reportJson({ from, to, total, keys, days }: UsageReport) {
  const byId = (list: UsageReport['keys']) => list.map(({ keyId, counts }) => ({ id: keyId, counts }));
  return { from, to, total, keys: byId(keys), days: days.map((day) => ({ day: day.day, total: day.total, keys: byId(day.keys) })) };
}

const OUTCOME_HEADINGS = ['2XX', '304', '4XX', '429', '5XX'];

/** One row per day (and key, for an account), then each key's total and the grand total. */
function formatUsage(report: UsageReport, perKey: boolean): string[] {
  if (!report.days.length) return ['No answers in that range.'];
  const cells = ({ success, notModified, clientError, rateLimited, serverError }: UsageReport['total']) =>
    [success, notModified, clientError, rateLimited, serverError].map(String);
  const rows = [
    [perKey ? ['DAY', 'KEY'] : ['DAY'], OUTCOME_HEADINGS].flat(),
    ...report.days.flatMap((day) =>
      perKey ? day.keys.map(({ keyId, counts }) => [day.day, String(keyId), ...cells(counts)]) : [[day.day, ...cells(day.total)]],
    ),
    ...(perKey ? report.keys.map(({ keyId, counts }) => ['TOTAL', String(keyId), ...cells(counts)]) : []),
    [...(perKey ? ['TOTAL', 'ALL'] : ['TOTAL']), ...cells(report.total)],
  ];
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column])).join('  ').trimEnd());
}
