/**
 * The request counter and duration histogram of `/metrics`, kept as plain
 * numbers per series and written in the Prometheus text format only when
 * scraped. prom-client's labelled metrics build a label string and several
 * objects on every observation: two of them cost a sixth of the instructions
 * of a whole get (README, "Performance"). Here a request costs two Map
 * lookups in the table of its own route and a few additions.
 */

/** Upper bounds, in seconds, of the duration buckets (prom-client's defaults, so dashboards keep working). */
export const DURATION_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const REQUESTS_TOTAL = 'http_requests_total';
const DURATION = 'http_request_duration_seconds';

/** Requests of one method, route template and status. */
class RequestSeries {
  count = 0;
  sumSeconds = 0;
  /** Requests per bucket, not cumulative; the last entry holds those above every bound. */
  readonly perBucket: number[] = new Array<number>(DURATION_BUCKETS.length + 1).fill(0);

  /** The series' labels as they appear between the braces of the text format. */
  constructor(readonly labels: string) {}

  observe(seconds: number): void {
    this.count += 1;
    this.sumSeconds += seconds;
    let bucket = 0;
    while (bucket < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[bucket]) bucket++;
    this.perBucket[bucket] += 1;
  }
}

/**
 * The requests answered on one route template, by method and status. Each
 * route's response hook holds its own, made when the route is registered.
 */
export class RouteRequests {
  private readonly byMethod = new Map<string, Map<number, RequestSeries>>();

  constructor(readonly route: string) {}

  observe(method: string, status: number, seconds: number): void {
    let byStatus = this.byMethod.get(method);
    if (!byStatus) this.byMethod.set(method, (byStatus = new Map()));
    let series = byStatus.get(status);
    if (!series) byStatus.set(status, (series = new RequestSeries(labelsText({ method, route: this.route, status: String(status) }))));
    series.observe(seconds);
  }

  *series(): IterableIterator<RequestSeries> {
    for (const byStatus of this.byMethod.values()) yield* byStatus.values();
  }
}

/** Both metrics of every route, in the Prometheus text exposition format (version 0.0.4). */
export function renderRequestMetrics(routes: Iterable<RouteRequests>): string {
  const counter = [
    `# HELP ${REQUESTS_TOTAL} HTTP requests answered, by method, route template and status`,
    `# TYPE ${REQUESTS_TOTAL} counter`,
  ];
  const histogram = [
    `# HELP ${DURATION} Time from receiving a request to finishing its response, by method, route template and status`,
    `# TYPE ${DURATION} histogram`,
  ];
  for (const route of routes) {
    for (const series of route.series()) {
      counter.push(`${REQUESTS_TOTAL}{${series.labels}} ${series.count}`);
      let cumulative = 0;
      DURATION_BUCKETS.forEach((bound, i) => {
        cumulative += series.perBucket[i];
        histogram.push(`${DURATION}_bucket{le="${bound}",${series.labels}} ${cumulative}`);
      });
      histogram.push(`${DURATION}_bucket{le="+Inf",${series.labels}} ${series.count}`);
      histogram.push(`${DURATION}_sum{${series.labels}} ${series.sumSeconds}`);
      histogram.push(`${DURATION}_count{${series.labels}} ${series.count}`);
    }
  }
  return `${counter.join('\n')}\n\n${histogram.join('\n')}\n`;
}

/** `name="value",…` with values escaped as the text format requires (backslash, double quote, line feed). */
function labelsText(labels: Record<string, string>): string {
  return Object.entries(labels)
    .map(([name, value]) => `${name}="${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`)
    .join(',');
}
