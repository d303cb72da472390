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

/** One stretch of load as autocannon counted it, its latencies still a histogram, so that stretches merge exactly. */
export type LoadStretch = autocannon.RawResult;

export function runStretch(scenario: Scenario, settings: LoadSettings, duration: number): Promise<LoadStretch> {
  return autocannon({
    url: settings.baseUrl,
    connections: settings.connections,
    duration,
    headers: settings.headers,
    requests: [scenario.request, ...(scenario.then ?? [])].map((request) => ({ ...request, headers: { ...settings.headers, ...request.headers } })),
    skipAggregateResult: true,
  });
}

/**
 * The figures of one server's stretches as if they were one run: requests and
 * seconds summed, percentiles read from the merged latency histograms (not
 * averaged from each stretch's).
 */
export function mergeStretches(stretches: readonly LoadStretch[], settings: LoadSettings): LoadFigures {
  if (stretches.length === 0) throw new Error('mergeStretches needs at least one stretch');
  const merged = autocannon.aggregateResult([...stretches], { url: settings.baseUrl, connections: settings.connections });
  const total = stretches.reduce((sum, stretch) => sum + stretch.totalCompletedRequests, 0);
  const seconds = stretches.reduce((sum, stretch) => sum + stretch.duration, 0);
  return {
    reqPerSec: total / seconds,
    p50Ms: merged.latency.p50,
    p99Ms: merged.latency.p99,
    errors: merged.errors,
    non2xx: merged.non2xx,
    total,
  };
}

export async function runLoad(scenario: Scenario, settings: LoadSettings, duration = settings.duration): Promise<LoadFigures> {
  return mergeStretches([await runStretch(scenario, settings, duration)], settings);
}

/**
 * The order of `slices` turns of each member of `pair`, alternating and
 * mirrored turn by turn (A B, B A, A B, ...): a drift of the machine's speed
 * during the run then falls on both alike, and neither always goes first.
 */
export function interleave<T>(pair: readonly [T, T], slices: number): T[] {
  const [first, second] = pair;
  return Array.from({ length: slices }, (_, turn) => (turn % 2 ? [second, first] : [first, second])).flat();
}
