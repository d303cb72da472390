import { plainToInstance, Transform } from 'class-transformer';
import { isIP } from 'node:net';
import { IsBoolean, IsIn, IsOptional, IsString, Matches, ValidateBy, validateSync } from 'class-validator';

export const APP_ENVS = ['development', 'test', 'staging', 'production'] as const;
export type AppEnv = (typeof APP_ENVS)[number];

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

const MYSQL_URL = /^(mysql|mariadb):\/\/.+/;

/** Raised when the environment cannot produce a valid configuration; its message is one line. */
export class ConfigError extends Error {}

const toInt = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
const toBool = ({ value }: { value: unknown }) =>
  value === 'true' ? true : value === 'false' ? false : value;
const toList = ({ value }: { value: unknown }) =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean)
    : value;

function IsIntBetween(min: number, max = Number.MAX_SAFE_INTEGER): PropertyDecorator {
  return ValidateBy({
    name: 'isIntBetween',
    validator: {
      validate: (value) => Number.isSafeInteger(value) && value >= min && value <= max,
      defaultMessage: () => (max === Number.MAX_SAFE_INTEGER ? `must be an integer of at least ${min}` : `must be an integer from ${min} to ${max}`),
    },
  });
}

/**
 * The environment variables the service reads, each checked once at start.
 * Property names are the variable names so that an error message names the variable.
 */
class EnvironmentVariables {
  @Transform(toInt) @IsIntBetween(0, 65535) PORT = 3000;
  @IsOptional() @Transform(toInt) @IsIntBetween(0, 65535) OPS_PORT?: number;
  @IsString() HOST = '0.0.0.0';
  @Matches(/^(sqlite:.+|(mysql|mariadb):\/\/.+)$/, {
    message: 'DATABASE_URL must be sqlite:<path> or mysql://user:pass@host:port/db',
  })
  DATABASE_URL = 'sqlite:./data/animal-store.db';
  @IsOptional()
  @Transform(toList)
  @ValidateBy({
    name: 'isMysqlUrlList',
    validator: {
      validate: (value) => Array.isArray(value) && value.length > 0 && value.every((url) => typeof url === 'string' && MYSQL_URL.test(url)),
      defaultMessage: () => 'DATABASE_REPLICA_URLS must be mysql://user:pass@host:port/db,mysql://... (read replicas of DATABASE_URL)',
    },
  })
  DATABASE_REPLICA_URLS?: string[];
  @Transform(toInt) @IsIntBetween(1, 86_400) DATABASE_REPLICA_MAX_LAG_SECONDS = 5;
  @Transform(toInt) @IsIntBetween(100, 60_000) DATABASE_ACQUIRE_TIMEOUT_MS = 2_000;
  @Transform(toInt) @IsIntBetween(100, 3_600_000) DATABASE_STATEMENT_TIMEOUT_MS = 3_000;
  @IsOptional() @Matches(/^rediss?:\/\/.+/, { message: 'REDIS_URL must be redis://host:port' })
  REDIS_URL?: string;
  @IsOptional()
  @Transform(toList)
  @ValidateBy({
    name: 'isRedisSeedList',
    validator: { validate: isSeedList, defaultMessage: () => 'REDIS_CLUSTER_NODES must be host:port,host:port,... (seed nodes of a Redis Cluster)' },
  })
  REDIS_CLUSTER_NODES?: string[];
  @IsIn(APP_ENVS) APP_ENV: AppEnv = 'development';
  @Matches(/^https?:\/\/.+\/v1$/, { message: 'PUBLIC_BASE_URL must be an http(s) URL ending in /v1' })
  PUBLIC_BASE_URL = 'http://localhost:3000/v1';
  @Matches(/^https?:\/\/.+\/v1$/, { message: 'STAGING_BASE_URL must be an http(s) URL ending in /v1' })
  STAGING_BASE_URL = 'http://localhost:3000/v1';
  @Matches(/^[A-Za-z0-9:_.-]{1,64}$/, { message: 'must be 1 to 64 letters, digits or :_.-' })
  REDIS_KEY_PREFIX = 'animal-store:rate-limit:';
  @IsOptional() @IsString() RATE_LIMIT_PLANS?: string;
  @Transform(toInt) @IsIntBetween(1) BAN_AFTER_REJECTIONS = 30;
  @Transform(toInt) @IsIntBetween(1) BAN_SECONDS = 900;
  @IsIn(LOG_LEVELS) LOG_LEVEL: LogLevel = 'info';
  @IsOptional() @IsIn(LOG_FORMATS, { message: 'LOG_FORMAT must be json or pretty' }) LOG_FORMAT?: LogFormat;
  @IsOptional() @Matches(/^https?:\/\/[^\s]+$/, { message: 'OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL of an OTLP collector' })
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  @Transform(toInt) @IsIntBetween(1024) BODY_LIMIT_BYTES = 16_384;
  @IsOptional() @IsString() TRUST_PROXY?: string;
  @Transform(toBool) @IsBoolean() ALLOW_SQLITE_IN_PRODUCTION = false;
  @Transform(toList)
  @ValidateBy({
    name: 'isOriginList',
    validator: {
      validate: (value) => Array.isArray(value) && value.every(isOrigin),
      defaultMessage: (args) =>
        `CORS_ORIGINS must list origins as a browser sends them, scheme://host[:port] with no path, such as https://shop.example.com; "${(args?.value as unknown[]).find((origin) => !isOrigin(origin))}" is not one`,
    },
  })
  CORS_ORIGINS: string[] = [];
  @Transform(toInt) @IsIntBetween(0) SHUTDOWN_TIMEOUT_MS = 10_000;
  @Transform(toInt) @IsIntBetween(1) IDEMPOTENCY_TTL_SECONDS = 86_400;
  @Transform(toInt) @IsIntBetween(1) ORDER_HOLD_SECONDS = 1_800;
  @Transform(toInt) @IsIntBetween(1, 3_650) USAGE_RETENTION_DAYS = 90;
  @Transform(toInt) @IsIntBetween(1) HEADERS_TIMEOUT_MS = 10_000;
  @Transform(toInt) @IsIntBetween(1) REQUEST_TIMEOUT_MS = 30_000;
  @Transform(toInt) @IsIntBetween(0) MAX_EVENT_LOOP_DELAY_MS = 1_000;
}

/** TRUST_PROXY as Fastify's `trustProxy` takes it: `false`, or the proxies' addresses, CIDR ranges and proxy-addr's names. */
export type TrustProxy = false | readonly string[];

const PROXY_ADDRESS_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);
const TRUST_PROXY_EXAMPLE = 'set the addresses or CIDR ranges of the proxies in front, e.g. 10.0.0.5,10.1.0.0/16';

function isProxyAddress(entry: string): boolean {
  if (PROXY_ADDRESS_NAMES.has(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

/**
 * `true` would let any client write its own address into X-Forwarded-For; a
 * hop count cannot tell a proxy from a client that connects directly, and
 * Fastify ignores it (docs/adr/0049): both are refused, with what to set.
 */
function parseTrustProxy(value: string | undefined): TrustProxy {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') throw invalidConfiguration('TRUST_PROXY', `true would let any client pick its address; ${TRUST_PROXY_EXAMPLE}`);
  if (/^\d+$/.test(value)) throw invalidConfiguration('TRUST_PROXY', `a hop count cannot tell a proxy from a client; ${TRUST_PROXY_EXAMPLE}`);
  const entries = value.split(',').map((entry) => entry.trim());
  const wrong = entries.find((entry) => !isProxyAddress(entry));
  if (wrong !== undefined) throw invalidConfiguration('TRUST_PROXY', `"${wrong}" is not an IP address or CIDR range; ${TRUST_PROXY_EXAMPLE}`);
  return entries;
}

/** Whether `value` is an origin as a browser's Origin header names it: http(s), a host, maybe a port, and nothing after. */
function isOrigin(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value;
  } catch {
    return false;
  }
}

/** A Redis Cluster seed node, as REDIS_CLUSTER_NODES lists them. */
export interface RedisNode {
  readonly host: string;
  readonly port: number;
}

function toRedisNode(seed: string): RedisNode {
  const at = seed.lastIndexOf(':');
  return { host: seed.slice(0, at), port: Number(seed.slice(at + 1)) };
}

function isSeedList(value: unknown): boolean {
  if (!Array.isArray(value) || value.length === 0) return false;
  return value.every((seed) => {
    if (typeof seed !== 'string' || !/^[A-Za-z0-9.-]+:\d{1,5}$/.test(seed)) return false;
    const { port } = toRedisNode(seed);
    return port >= 1 && port <= 65535;
  });
}

const KNOWN_VARIABLES = new Set(Object.keys(new EnvironmentVariables()));

/** A plan's limits as RATE_LIMIT_PLANS gives them: either number may be left to the plan's default. */
export interface PlanLimitsOverride {
  readonly perMinute?: number;
  readonly perDay?: number;
}

/**
 * RATE_LIMIT_PLANS by plan name, each number a positive integer. Which names
 * are plans is the auth module's to say, where it builds its plan table.
 */
export type RateLimitPlanOverrides = Readonly<Record<string, PlanLimitsOverride>>;

/** RATE_LIMIT_PLANS' `concurrency` by plan name: the requests an account of the plan may have in flight at once. */
export type PlanConcurrencyOverrides = Readonly<Record<string, number>>;

/** RATE_LIMIT_PLANS' `openOrders` by plan name: the placed orders an account of the plan may hold at once. */
export type PlanOpenOrdersOverrides = Readonly<Record<string, number>>;

/** The service's whole configuration, built once at start from the environment. */
export interface AppConfig {
  readonly port: number;
  readonly host: string;
  /** Where /metrics and /readyz are served instead of `port`; unset, they are served on `port`. */
  readonly opsPort?: number;
  readonly databaseUrl: string;
  /** Read replicas of the MySQL primary that serve pet reads; empty when there are none. */
  readonly databaseReplicaUrls: readonly string[];
  /** A replica reporting more lag than this is taken out of reads until it catches up. */
  readonly databaseReplicaMaxLagSeconds: number;
  /** On MySQL, the longest a request waits for a pooled connection before it is answered 503. */
  readonly databaseAcquireTimeoutMs: number;
  /** On MariaDB, the longest a statement runs (or waits on a lock) before the server stops it and the request is answered 503. */
  readonly databaseStatementTimeoutMs: number;
  readonly redisUrl?: string;
  /** Seed nodes of a Redis Cluster that holds the rate-limit counters; used instead of `redisUrl`. */
  readonly redisClusterNodes?: readonly RedisNode[];
  /** Prefix of the rate-limit keys in Redis, so several deployments can share one server. */
  readonly redisKeyPrefix: string;
  readonly appEnv: AppEnv;
  readonly publicBaseUrl: string;
  readonly stagingBaseUrl: string;
  /** The base, ending in /v1, of every absolute URL the service writes: its own environment's, never a request's Host. */
  readonly ownBaseUrl: string;
  readonly rateLimitPlans: RateLimitPlanOverrides;
  readonly planConcurrency: PlanConcurrencyOverrides;
  readonly planOpenOrders: PlanOpenOrdersOverrides;
  readonly banAfterRejections: number;
  readonly banSeconds: number;
  readonly logLevel: LogLevel;
  /** Unset: pretty in development on a terminal, JSON otherwise (see chooseLogFormat). */
  readonly logFormat?: LogFormat;
  /** Set when requests are traced to an OTLP collector (OTEL_EXPORTER_OTLP_ENDPOINT). */
  readonly tracing: boolean;
  readonly bodyLimitBytes: number;
  /** Which proxies may record the client address: none, or their addresses and CIDR ranges (Fastify's trustProxy). */
  readonly trustProxy: TrustProxy;
  readonly allowSqliteInProduction: boolean;
  readonly corsOrigins: readonly string[];
  readonly shutdownTimeoutMs: number;
  /** How long the outcome of a create sent with an Idempotency-Key answers its retries. */
  readonly idempotencyTtlSeconds: number;
  /** How long a placed order holds its pet before it is cancelled, unless delivered. */
  readonly orderHoldSeconds: number;
  /** How many UTC days of usage per key are kept, today included. */
  readonly usageRetentionDays: number;
  /** A connection that has not sent a whole request head within this time is closed. */
  readonly headersTimeoutMs: number;
  /** A connection that has not sent a whole request, body included, within this time is closed. */
  readonly requestTimeoutMs: number;
  /** Requests are answered 503 while the event loop's mean delay is over this; 0 never refuses. */
  readonly maxEventLoopDelayMs: number;
}

/** DI token and type for the configuration object. */
export abstract class AppConfig {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const present = Object.fromEntries(
    Object.entries(env).filter(([name, value]) => value !== undefined && value !== '' && KNOWN_VARIABLES.has(name)),
  );
  const vars = plainToInstance(EnvironmentVariables, present);
  const [first] = validateSync(vars, { stopAtFirstError: true });
  if (first) {
    const constraint = Object.values(first.constraints ?? {})[0] ?? 'is invalid';
    const message = constraint.startsWith(`${first.property} `) ? constraint.slice(first.property.length + 1) : constraint;
    throw invalidConfiguration(first.property, message);
  }
  if (vars.APP_ENV === 'production' && vars.DATABASE_URL.startsWith('sqlite:') && !vars.ALLOW_SQLITE_IN_PRODUCTION) {
    throw new ConfigError(
      'Invalid configuration: DATABASE_URL: production needs MySQL; set ALLOW_SQLITE_IN_PRODUCTION=true to run on the embedded store',
    );
  }
  if (MYSQL_URL.test(vars.DATABASE_URL)) checkOneDatabaseAddress(vars.DATABASE_URL);
  if (MYSQL_URL.test(vars.DATABASE_URL) && !/^[a-z]+:\/\/[^/]+\/[^/?#]+/.test(vars.DATABASE_URL)) {
    throw invalidConfiguration('DATABASE_URL', 'names no database; add it after the address, as in mysql://user:pass@host:3306/animal_store');
  }
  if (vars.DATABASE_REPLICA_URLS && !MYSQL_URL.test(vars.DATABASE_URL)) {
    throw invalidConfiguration('DATABASE_REPLICA_URLS', 'read replicas need a MySQL or MariaDB DATABASE_URL');
  }
  if (vars.REDIS_URL && vars.REDIS_CLUSTER_NODES) {
    throw invalidConfiguration('REDIS_CLUSTER_NODES', 'set either REDIS_URL (one Redis) or REDIS_CLUSTER_NODES (a Redis Cluster), not both');
  }
  // Unset (development and test only), links point at this very process, whatever its PORT.
  const localBaseUrl = `http://localhost:${vars.PORT}/v1`;
  const baseUrlOf = (name: 'PUBLIC_BASE_URL' | 'STAGING_BASE_URL') => (present[name] === undefined ? localBaseUrl : vars[name]);
  const ownBaseVariable = vars.APP_ENV === 'staging' ? 'STAGING_BASE_URL' : 'PUBLIC_BASE_URL';
  if ((vars.APP_ENV === 'staging' || vars.APP_ENV === 'production') && present[ownBaseVariable] === undefined) {
    throw invalidConfiguration(ownBaseVariable, `${vars.APP_ENV} writes its links with it; set the address clients use, e.g. https://api.example.com/v1`);
  }
  if (vars.REQUEST_TIMEOUT_MS < vars.HEADERS_TIMEOUT_MS) {
    throw invalidConfiguration('REQUEST_TIMEOUT_MS', 'must be at least HEADERS_TIMEOUT_MS, as the head is part of the request');
  }
  return {
    port: vars.PORT,
    host: vars.HOST,
    opsPort: vars.OPS_PORT,
    databaseUrl: vars.DATABASE_URL,
    databaseReplicaUrls: vars.DATABASE_REPLICA_URLS ?? [],
    databaseReplicaMaxLagSeconds: vars.DATABASE_REPLICA_MAX_LAG_SECONDS,
    databaseAcquireTimeoutMs: vars.DATABASE_ACQUIRE_TIMEOUT_MS,
    databaseStatementTimeoutMs: vars.DATABASE_STATEMENT_TIMEOUT_MS,
    redisUrl: vars.REDIS_URL,
    redisClusterNodes: vars.REDIS_CLUSTER_NODES?.map(toRedisNode),
    redisKeyPrefix: vars.REDIS_KEY_PREFIX,
    appEnv: vars.APP_ENV,
    publicBaseUrl: baseUrlOf('PUBLIC_BASE_URL'),
    stagingBaseUrl: baseUrlOf('STAGING_BASE_URL'),
    ownBaseUrl: baseUrlOf(ownBaseVariable),
    ...parsePlans(vars.RATE_LIMIT_PLANS),
    banAfterRejections: vars.BAN_AFTER_REJECTIONS,
    banSeconds: vars.BAN_SECONDS,
    logLevel: vars.LOG_LEVEL,
    logFormat: vars.LOG_FORMAT,
    tracing: vars.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined,
    bodyLimitBytes: vars.BODY_LIMIT_BYTES,
    trustProxy: parseTrustProxy(vars.TRUST_PROXY),
    allowSqliteInProduction: vars.ALLOW_SQLITE_IN_PRODUCTION,
    corsOrigins: vars.CORS_ORIGINS,
    shutdownTimeoutMs: vars.SHUTDOWN_TIMEOUT_MS,
    idempotencyTtlSeconds: vars.IDEMPOTENCY_TTL_SECONDS,
    orderHoldSeconds: vars.ORDER_HOLD_SECONDS,
    usageRetentionDays: vars.USAGE_RETENTION_DAYS,
    headersTimeoutMs: vars.HEADERS_TIMEOUT_MS,
    requestTimeoutMs: vars.REQUEST_TIMEOUT_MS,
    maxEventLoopDelayMs: vars.MAX_EVENT_LOOP_DELAY_MS,
  };
}

/**
 * A URL of several hosts (`db1,db2`) is refused: the service speaks to one
 * address, and a cluster is reached through a proxy in front of its nodes
 * (docs/adr/0052).
 */
function checkOneDatabaseAddress(databaseUrl: string): void {
  const authority = /^[a-z]+:\/\/([^/?#]*)/.exec(databaseUrl)?.[1] ?? '';
  if (authority.slice(authority.lastIndexOf('@') + 1).includes(',')) {
    throw invalidConfiguration('DATABASE_URL', 'names several hosts; give one address, such as a proxy in front of a cluster\'s nodes (docs/operations.md)');
  }
}

/** One line naming the variable, as every configuration error is. */
export function invalidConfiguration(variable: string, why: string): ConfigError {
  return new ConfigError(`Invalid configuration: ${variable}: ${why}`);
}

function parsePlans(json: string | undefined): Pick<AppConfig, 'rateLimitPlans' | 'planConcurrency' | 'planOpenOrders'> {
  if (json === undefined) return { rateLimitPlans: {}, planConcurrency: {}, planOpenOrders: {} };
  const fail = (why: string): never => {
    throw invalidConfiguration('RATE_LIMIT_PLANS', why);
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return fail('is not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return fail('must be a JSON object such as {"free":{"perMinute":5,"perDay":8}}');
  }
  const plans: Record<string, PlanLimitsOverride> = {};
  const concurrencies: Record<string, number> = {};
  const openOrders: Record<string, number> = {};
  for (const [plan, limits] of Object.entries(parsed)) {
    const { perMinute, perDay, concurrency, openOrders: open } = (limits ?? {}) as Record<string, unknown>;
    if (![perMinute, perDay, concurrency, open].every(isAbsentOrPositiveInt)) {
      fail(`plan "${plan}" needs positive integers perMinute, perDay, concurrency and openOrders`);
    }
    if (concurrency != null) concurrencies[plan] = concurrency as number;
    if (open != null) openOrders[plan] = open as number;
    plans[plan] = {
      ...(perMinute == null ? {} : { perMinute: perMinute as number }),
      ...(perDay == null ? {} : { perDay: perDay as number }),
    };
  }
  return { rateLimitPlans: plans, planConcurrency: concurrencies, planOpenOrders: openOrders };
}

function isAbsentOrPositiveInt(value: unknown): boolean {
  return value == null || (Number.isSafeInteger(value) && (value as number) >= 1);
}
