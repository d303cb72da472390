import { Counter, Histogram, Registry } from 'prom-client';
import { OpsMetrics } from './metrics';
import { DURATION_BUCKETS } from './request-metrics';

describe('OpsMetrics', () => {
  it('counts 429s by their error code, anything unexpected as other', async () => {
    const metrics = new OpsMetrics();
    metrics.countRejection('rate_limited');
    metrics.countRejection('rate_limited');
    metrics.countRejection('api_key_banned');
    metrics.countRejection(undefined);
    metrics.countRejection('not_found');
    const text = await metrics.render();
    expect(text).toMatch(/^rate_limit_rejections_total\{code="rate_limited"\} 2$/m);
    expect(text).toMatch(/^rate_limit_rejections_total\{code="api_key_banned"\} 1$/m);
    expect(text).toMatch(/^rate_limit_rejections_total\{code="other"\} 2$/m);
    expect(text).not.toContain('code="not_found"');
  });

  it('counts reads by the server that answered them, both series present from the start', async () => {
    const metrics = new OpsMetrics();
    expect(await metrics.render()).toMatch(/^database_reads_total\{target="replica"\} 0$/m);
    metrics.countRead('primary');
    metrics.countRead('replica');
    metrics.countRead('replica');
    const text = await metrics.render();
    expect(text).toMatch(/^database_reads_total\{target="primary"\} 1$/m);
    expect(text).toMatch(/^database_reads_total\{target="replica"\} 2$/m);
  });

  it('labels requests without a route as unmatched', async () => {
    const metrics = new OpsMetrics();
    metrics.requestsTo(undefined).observe('GET', 404, 0.001);
    expect(await metrics.render()).toMatch(/^http_requests_total\{method="GET",route="unmatched",status="404"\} 1$/m);
  });

  it('hands out one table per route template', () => {
    const metrics = new OpsMetrics();
    expect(metrics.requestsTo('/v1/pets')).toBe(metrics.requestsTo('/v1/pets'));
    expect(metrics.requestsTo(undefined)).toBe(metrics.requestsTo(undefined));
    expect(metrics.requestsTo('/v1/pets')).not.toBe(metrics.requestsTo('/v1/pets/:petId'));
  });

  it('writes the request counter and histogram exactly as prom-client would for the same requests', async () => {
    const observed: [route: string, method: string, status: number, seconds: number][] = [
      ['/v1/pets', 'GET', 200, 0.003],
      ['/v1/pets', 'GET', 200, 0.005], // on a bound: counted in that bucket
      ['/v1/pets', 'GET', 200, 0.0051],
      ['/v1/pets', 'POST', 201, 0.02],
      ['/v1/pets', 'GET', 400, 7],
      ['/v1/pets/:petId', 'GET', 404, 42], // above every bound: +Inf only
      ['/odd"route\\with\nbreak', 'GET', 200, 0.1],
    ];
    const metrics = new OpsMetrics();
    const reference = new Registry();
    const labelNames = ['method', 'route', 'status'] as const;
    const counter = new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by method, route template and status',
      labelNames,
      registers: [reference],
    });
    const histogram = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from receiving a request to finishing its response, by method, route template and status',
      labelNames,
      buckets: [...DURATION_BUCKETS],
      registers: [reference],
    });
    for (const [route, method, status, seconds] of observed) {
      metrics.requestsTo(route).observe(method, status, seconds);
      counter.inc({ method, route, status: String(status) });
      histogram.observe({ method, route, status: String(status) }, seconds);
    }

    const [ours, theirs] = [await metrics.render(), await reference.metrics()];
    // The order of series is free in the text format; the order of one series' lines (buckets by
    // rising bound, then +Inf, _sum, _count) is not, so lines are compared series by series, in order.
    const bySeries = (text: string) => {
      const series: Record<string, string[]> = {};
      for (const line of text.split('\n').filter((candidate) => candidate.startsWith('http_request'))) {
        const labels = line.replace(/^[a-z_]+\{(le="[^"]*",)?/, '').replace(/\} \S+$/, '');
        (series[labels] ??= []).push(line);
      }
      return series;
    };
    const headers = (text: string) => text.split('\n').filter((line) => /^# (HELP|TYPE) http_request/.test(line));
    const expected = bySeries(theirs);
    expect(Object.keys(expected)).toHaveLength(5);
    expect(bySeries(ours)).toEqual(expected);
    expect(headers(ours)).toEqual(headers(theirs));
  });

  it('gives each instance its own registry and request counts', async () => {
    const first = new OpsMetrics();
    const second = new OpsMetrics();
    first.countPetCreated();
    first.requestsTo('/healthz').observe('GET', 200, 0.001);
    expect(await first.render()).toMatch(/^pets_created_total 1$/m);
    expect(await second.render()).toMatch(/^pets_created_total 0$/m);
    expect(await second.render()).not.toContain('route="/healthz"');
  });
});
