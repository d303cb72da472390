import { OpsMetrics } from './metrics';

describe('OpsMetrics', () => {
  const request = { method: 'GET', route: '/v1/pets', durationSeconds: 0.003 };

  it('counts 429s by their error code, anything unexpected as other', async () => {
    const metrics = new OpsMetrics();
    metrics.observeRequest({ ...request, status: 429, errorCode: 'rate_limited' });
    metrics.observeRequest({ ...request, status: 429, errorCode: 'rate_limited' });
    metrics.observeRequest({ ...request, status: 429, errorCode: 'api_key_banned' });
    metrics.observeRequest({ ...request, status: 429 });
    metrics.observeRequest({ ...request, status: 404, errorCode: 'not_found' });
    const text = await metrics.render();
    expect(text).toMatch(/^rate_limit_rejections_total\{code="rate_limited"\} 2$/m);
    expect(text).toMatch(/^rate_limit_rejections_total\{code="api_key_banned"\} 1$/m);
    expect(text).toMatch(/^rate_limit_rejections_total\{code="other"\} 1$/m);
    expect(text).not.toContain('code="not_found"');
  });

  it('labels a request without a route as unmatched', async () => {
    const metrics = new OpsMetrics();
    metrics.observeRequest({ ...request, route: undefined, status: 404 });
    expect(await metrics.render()).toMatch(/^http_requests_total\{method="GET",route="unmatched",status="404"\} 1$/m);
  });

  it('gives each instance its own registry', async () => {
    const first = new OpsMetrics();
    const second = new OpsMetrics();
    first.countPetCreated();
    expect(await first.render()).toMatch(/^pets_created_total 1$/m);
    expect(await second.render()).toMatch(/^pets_created_total 0$/m);
  });
});
