import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { RequestMetrics, RouteRequests } from './request-metrics';

/** The route label of requests that matched no route, so unknown paths cannot multiply series. */
const UNMATCHED_ROUTE = 'unmatched';

/** The error codes a 429 carries; anything else is counted under `other`. */
const REJECTION_CODES = ['rate_limited', 'api_key_banned'] as const;

/** The plan label of a request without a valid key. */
export const ANONYMOUS_PLAN = 'anonymous';

/** How a request under /v1 ended, as the `outcome` label says it: a fixed set, whatever the status or code. */
export const OUTCOMES = ['success', 'not_modified', 'client_error', 'unauthorized', 'rate_limited', 'api_key_banned', 'server_error'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** The outcome of an answer: its status class, with the refusals an operator watches for told apart by their code. */
export function outcomeOf(status: number, errorCode: string | undefined): Outcome {
  if (status === 304) return 'not_modified';
  if (status < 400) return 'success';
  if (status >= 500) return 'server_error';
  if (status === 401) return 'unauthorized';
  if (status === 429) return errorCode === 'api_key_banned' ? 'api_key_banned' : 'rate_limited';
  return 'client_error';
}

/**
 * The service's Prometheus metrics, in a registry of its own per application
 * instance, so several apps in one process (tests) never share or clash.
 */
@Injectable()
export class OpsMetrics {
  readonly registry = new Registry();
  private readonly requests = new RequestMetrics(this.registry);

  private readonly rejections = new Counter({
    name: 'rate_limit_rejections_total',
    help: 'Requests answered 429, by error code (rate_limited or api_key_banned)',
    labelNames: ['code'] as const,
    registers: [this.registry],
  });

  private readonly byPlan = new Counter({
    name: 'api_requests_total',
    help: "Requests under /v1 by the caller's plan (anonymous without a valid key) and outcome; keys and accounts are in the logs, never labels",
    labelNames: ['plan', 'outcome'] as const,
    registers: [this.registry],
  });

  /** The children of the plan and outcome pairs seen, so a request skips prom-client's label lookup. */
  private readonly byPlanSeries = new Map<string, Counter.Internal>();

  private readonly storeShared = new Gauge({
    name: 'rate_limit_store_shared',
    help: 'Whether the rate limits are shared by every instance through Redis (1) or counted by this instance alone (0)',
    registers: [this.registry],
  });

  private readonly usageUpserts = new Counter({
    name: 'usage_upserts_total',
    help: 'Statements that added batched usage counts to the store (each covers many requests)',
    registers: [this.registry],
  });

  private readonly petsCreated = new Counter({
    name: 'pets_created_total',
    help: 'Pets added to the catalogue',
    registers: [this.registry],
  });

  private readonly reads = new Counter({
    name: 'database_reads_total',
    help: 'Pet reads by the server that answered them: primary or replica',
    labelNames: ['target'] as const,
    registers: [this.registry],
  });

  /** The children of the two read targets, so a read skips prom-client's label lookup. */
  private readonly readsBy = { primary: this.reads.labels('primary'), replica: this.reads.labels('replica') };

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    // Every series exists from the start, so a rate() over it works before its first count.
    REJECTION_CODES.forEach((code) => this.rejections.labels(code).inc(0));
    Object.values(this.readsBy).forEach((series) => series.inc(0));
  }

  /** The request counts of one route template, made on first use; undefined (no route matched) is `unmatched`. */
  requestsTo(route: string | undefined): RouteRequests {
    return this.requests.forRoute(route ?? UNMATCHED_ROUTE);
  }

  /** A 429 answered with this Error code; anything but the two rate-limit codes counts as `other`. */
  countRejection(errorCode: string | undefined): void {
    this.rejections.inc({ code: (REJECTION_CODES as readonly string[]).includes(errorCode ?? '') ? errorCode : 'other' });
  }

  /** One request under /v1; `plan` is one of the plan table's names or anonymous, so the series stay few. */
  countRequest(plan: string, outcome: Outcome): void {
    const series = `${plan} ${outcome}`;
    let child = this.byPlanSeries.get(series);
    if (!child) this.byPlanSeries.set(series, (child = this.byPlan.labels(plan, outcome)));
    child.inc();
  }

  markRateLimitStoreShared(shared: boolean): void {
    this.storeShared.set(shared ? 1 : 0);
  }

  countUsageUpserts(statements: number): void {
    this.usageUpserts.inc(statements);
  }

  countRead(servedBy: 'primary' | 'replica'): void {
    this.readsBy[servedBy].inc();
  }

  countPetCreated(): void {
    this.petsCreated.inc();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }
}
