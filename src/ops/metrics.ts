import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/** The route label of requests that matched no route, so unknown paths cannot multiply series. */
export const UNMATCHED_ROUTE = 'unmatched';

/** The error codes a 429 carries; anything else is counted under `other`. */
const REJECTION_CODES = ['rate_limited', 'api_key_banned'] as const;

export interface ObservedRequest {
  readonly method: string;
  /** The route template (`/v1/pets/:petId`), or undefined when no route matched. */
  readonly route: string | undefined;
  readonly status: number;
  readonly durationSeconds: number;
  /** The Error body's `code`, when the response was an error. */
  readonly errorCode?: string;
}

/**
 * The service's Prometheus metrics, in a registry of its own per application
 * instance: several apps in one process (tests) never share or clash.
 */
@Injectable()
export class OpsMetrics {
  readonly registry = new Registry();

  private readonly requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });

  private readonly duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving a request to finishing its response, by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

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

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    // Both series exist from the start, so a rate() over them works before the first rejection.
    REJECTION_CODES.forEach((code) => this.rejections.labels(code).inc(0));
  }

  observeRequest({ method, route, status, durationSeconds, errorCode }: ObservedRequest): void {
    const labels = { method, route: route ?? UNMATCHED_ROUTE, status: String(status) };
    this.requests.inc(labels);
    this.duration.observe(labels, durationSeconds);
    if (status === 429) {
      this.rejections.inc({ code: (REJECTION_CODES as readonly string[]).includes(errorCode ?? '') ? errorCode : 'other' });
    }
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
