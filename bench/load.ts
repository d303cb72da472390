import autocannon from 'autocannon';
import { Scenario } from './scenarios';

export interface LoadFigures {
  readonly reqPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly errors: number;
  readonly non2xx: number;
  readonly total: number;
}

export interface LoadSettings {
  readonly baseUrl: string;
  readonly connections: number;
  readonly duration: number;
  readonly headers: Record<string, string>;
}

export async function runLoad(scenario: Scenario, settings: LoadSettings, duration = settings.duration): Promise<LoadFigures> {
  const result = await autocannon({
    url: settings.baseUrl,
    connections: settings.connections,
    duration,
    headers: settings.headers,
    requests: [{ ...scenario.request, headers: { ...settings.headers, ...scenario.request.headers } }],
  });
  return {
    reqPerSec: result.requests.total / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
    total: result.requests.total,
  };
}
