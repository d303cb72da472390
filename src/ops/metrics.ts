import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Registry } from 'prom-client';
import { RequestMetrics, RouteRequests } from './request-metrics';

/** The route label of requests that matched no route, so unknown paths cannot multiply series. */
const UNMATCHED_ROUTE = 'unmatched';

/** The error codes a 429 carries; anything else is counted under `other`. */
const REJECTION_CODES = ['rate_limited', 'api_key_banned'] as const;

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
