import { Counter, Histogram, Registry } from 'prom-client';

/** Upper bounds, in seconds, of the duration buckets: prom-client's defaults, written out so dashboards never follow a library change. */
export const DURATION_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const REQUEST_LABELS = ['method', 'route', 'status'] as const;
type RequestLabel = (typeof REQUEST_LABELS)[number];

/** The request counter and duration histogram of `/metrics`, registered in the given registry. */
export class RequestMetrics {
  private readonly byRoute = new Map<string, RouteRequests>();
  private readonly requests: Counter<RequestLabel>;
  private readonly durations: Histogram<RequestLabel>;

  constructor(registry: Registry) {
    this.requests = new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by method, route template and status',
      labelNames: REQUEST_LABELS,
      registers: [registry],
    });
    this.durations = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from receiving a request to finishing its response, by method, route template and status',
      labelNames: REQUEST_LABELS,
      buckets: [...DURATION_BUCKETS],
      registers: [registry],
    });
  }

  /** The series of one route template, made on first use. */
  forRoute(route: string): RouteRequests {
    let requests = this.byRoute.get(route);
    if (!requests) this.byRoute.set(route, (requests = new RouteRequests(route, this.requests, this.durations)));
    return requests;
  }
}

interface SeriesChildren {
  readonly requests: Counter.Internal;
  readonly durations: Histogram.Internal<RequestLabel>;
}

/**
 * The requests answered on one route template. It keeps the labelled children
 * of every method and status it has seen, so a request skips prom-client's
 * label lookup.
 */
export class RouteRequests {
  private readonly children = new Map<string, SeriesChildren>();

  constructor(
    readonly route: string,
    private readonly requests: Counter<RequestLabel>,
    private readonly durations: Histogram<RequestLabel>,
  ) {}

  observe(method: string, status: number, seconds: number): void {
    const key = `${method} ${status}`;
    let series = this.children.get(key);
    if (!series) {
      const labels = { method, route: this.route, status: String(status) };
      series = { requests: this.requests.labels(labels), durations: this.durations.labels(labels) };
      this.children.set(key, series);
    }
    series.requests.inc();
    series.durations.observe(seconds);
  }
}
