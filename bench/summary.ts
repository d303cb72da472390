import { LoadFigures } from './load';
import { ScenarioName } from './scenarios';
import { median, medianRatio, roundRatios } from './stats';

export type Target = 'service' | 'baseline';

/** One scenario run against one server in one round. */
export interface Measurement {
  readonly round: number;
  readonly target: Target;
  readonly scenario: ScenarioName;
  readonly figures: LoadFigures;
  readonly peakRssMb?: number;
  /** Server CPU time per request, microseconds. */
  readonly cpuUsPerRequest?: number;
  /** Share of the machine's CPU time stolen by the hypervisor during the run. */
  readonly stealShare?: number;
}

export interface MedianFigures {
  readonly reqPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Summed over the rounds: one error anywhere should show. */
  readonly errors: number;
  readonly non2xx: number;
  readonly peakRssMb?: number;
  readonly cpuUsPerRequest?: number;
}

export interface Comparison {
  readonly scenario: ScenarioName;
  readonly service: MedianFigures;
  readonly baseline: MedianFigures;
  /** Medians of the per-round ratios service/baseline. */
  readonly reqPerSecRatio?: number;
  /** Each round's req/s ratio, in round order: how far one round can stray from the median. */
  readonly reqPerSecRatios: readonly number[];
  readonly p50Ratio?: number;
  readonly p99Ratio?: number;
  /** Server CPU per request, service/baseline: how much more work the stack does for one request. */
  readonly cpuRatio?: number;
}

export interface Verdict {
  readonly what: string;
  readonly target: string;
  readonly measured: string;
  readonly met: boolean | undefined;
}

export function medianFigures(runs: readonly Measurement[]): MedianFigures {
  const known = (values: (number | undefined)[]) => values.filter((value): value is number => value !== undefined);
  const rss = known(runs.map((run) => run.peakRssMb));
  const cpu = known(runs.map((run) => run.cpuUsPerRequest));
  return {
    reqPerSec: median(runs.map((run) => run.figures.reqPerSec)),
    p50Ms: median(runs.map((run) => run.figures.p50Ms)),
    p99Ms: median(runs.map((run) => run.figures.p99Ms)),
    errors: runs.reduce((sum, run) => sum + run.figures.errors, 0),
    non2xx: runs.reduce((sum, run) => sum + run.figures.non2xx, 0),
    peakRssMb: rss.length ? median(rss) : undefined,
    cpuUsPerRequest: cpu.length ? median(cpu) : undefined,
  };
}

/** Pairs each round's service run with the same round's baseline run of the scenario. */
export function compare(measurements: readonly Measurement[], scenarios: readonly ScenarioName[]): Comparison[] {
  return scenarios.map((scenario) => {
    const runs = (target: Target) =>
      measurements.filter((m) => m.scenario === scenario && m.target === target).sort((a, b) => a.round - b.round);
    const service = runs('service');
    const baseline = runs('baseline');
    const series = (pick: (f: LoadFigures) => number) =>
      medianRatio(service.map((m) => pick(m.figures)), baseline.map((m) => pick(m.figures)));
    return {
      scenario,
      service: medianFigures(service),
      baseline: medianFigures(baseline),
      reqPerSecRatio: series((f) => f.reqPerSec),
      reqPerSecRatios: roundRatios(service.map((m) => m.figures.reqPerSec), baseline.map((m) => m.figures.reqPerSec)),
      p50Ratio: series((f) => f.p50Ms),
      p99Ratio: series((f) => f.p99Ms),
      cpuRatio: cpuRatio(service, baseline),
    };
  });
}

function cpuRatio(service: readonly Measurement[], baseline: readonly Measurement[]): number | undefined {
  const cpu = (runs: readonly Measurement[]) => runs.map((run) => run.cpuUsPerRequest ?? NaN);
  return medianRatio(cpu(service), cpu(baseline));
}

const MIN_RATIO: Record<ScenarioName, number> = { 'list-first': 0.8, 'list-deep': 0.8, get: 0.8, create: 0.7, 'create-idempotent': 0.7, order: 0.8 };
const MAX_P99_RATIO = 1.5;
/** A create with an Idempotency-Key against one without, on the same server: what storing the key's record costs. */
const MIN_KEYED_SHARE = 0.8;
export const MAX_STARTUP_MS = 2_000;
export const MAX_SCALE_P50_RATIO = 1.5;

const fixed = (value: number | undefined, digits = 2, unit = '') => (value === undefined ? 'n/a' : `${value.toFixed(digits)}${unit}`);
// A ratio judged against a limit is shown rounded towards missing it, so 0.899 against ">= 0.90" reads 0.89x, not a missed 0.90x;
// the nudge keeps binary fractions whole (0.57 * 100 is 56.999...).
const NUDGE = 1e-9;
const shownAtLeast = (value: number | undefined) => fixed(value === undefined ? undefined : Math.floor(value * 100 + NUDGE) / 100, 2, 'x');
const shownAtMost = (value: number | undefined) => fixed(value === undefined ? undefined : Math.ceil(value * 100 - NUDGE) / 100, 2, 'x');
const atMost = (value: number | undefined, limit: number) => (value === undefined ? undefined : value <= limit);
const atLeast = (value: number | undefined, limit: number) => (value === undefined ? undefined : value >= limit);

/** The targets, each with what was measured. */
export function verdicts(comparisons: readonly Comparison[], startupMs: number | undefined, embeddedStore: boolean): Verdict[] {
  const result: Verdict[] = [];
  for (const c of comparisons) {
    result.push({ what: `${c.scenario} req/s`, target: `>= ${MIN_RATIO[c.scenario].toFixed(2)}x baseline`, measured: shownAtLeast(c.reqPerSecRatio), met: atLeast(c.reqPerSecRatio, MIN_RATIO[c.scenario]) });
    if (!c.scenario.startsWith('create')) {
      result.push({ what: `${c.scenario} p99`, target: `<= ${MAX_P99_RATIO}x baseline`, measured: shownAtMost(c.p99Ratio), met: atMost(c.p99Ratio, MAX_P99_RATIO) });
    }
  }
  const create = comparisons.find((c) => c.scenario === 'create');
  const keyed = comparisons.find((c) => c.scenario === 'create-idempotent');
  if (create && keyed) {
    const share = (target: Target) => keyed[target].reqPerSec / create[target].reqPerSec;
    result.push({
      what: 'create-idempotent req/s, of create',
      target: `>= ${MIN_KEYED_SHARE.toFixed(2)}x the service's create`,
      // The baseline's own share is the floor: bare Fastify storing the same record.
      measured: `${fixed(share('service'), 2, 'x')} (baseline: ${fixed(share('baseline'), 2, 'x')})`,
      met: atLeast(share('service'), MIN_KEYED_SHARE),
    });
  }
  result.push({
    what: 'service startup to ready',
    target: embeddedStore ? `< ${MAX_STARTUP_MS} ms` : `< ${MAX_STARTUP_MS} ms on SQLite (reported only)`,
    measured: fixed(startupMs, 0, ' ms'),
    met: embeddedStore && startupMs !== undefined ? startupMs < MAX_STARTUP_MS : undefined,
  });
  return result;
}

const MIN_FLOOR_REQ_RATIO = 0.9;
const MAX_FLOOR_CPU_RATIO = 1.15;
const MAX_FLOOR_P99_RATIO = 1.3;

/** The targets against the card's floor, when the floor ran in the baseline's place (`--against`): every scenario, each measure. */
export function floorVerdicts(comparisons: readonly Comparison[]): Verdict[] {
  return comparisons.flatMap((c) => [
    { what: `${c.scenario} req/s`, target: `>= ${MIN_FLOOR_REQ_RATIO.toFixed(2)}x floor`, measured: shownAtLeast(c.reqPerSecRatio), met: atLeast(c.reqPerSecRatio, MIN_FLOOR_REQ_RATIO) },
    { what: `${c.scenario} CPU per request`, target: `<= ${MAX_FLOOR_CPU_RATIO.toFixed(2)}x floor`, measured: shownAtMost(c.cpuRatio), met: atMost(c.cpuRatio, MAX_FLOOR_CPU_RATIO) },
    { what: `${c.scenario} p99`, target: `<= ${MAX_FLOOR_P99_RATIO.toFixed(2)}x floor`, measured: shownAtMost(c.p99Ratio), met: atMost(c.p99Ratio, MAX_FLOOR_P99_RATIO) },
  ]);
}


export interface ScaleRow {
  readonly pets: number;
  readonly scenario: ScenarioName;
  readonly figures: MedianFigures;
}

export interface ScaleRatio {
  readonly scenario: ScenarioName;
  readonly p50Ratio?: number;
  readonly p99Ratio?: number;
  readonly reqPerSecRatio?: number;
}

/** Latency at the large size over latency at the small one, per scenario, from each round's pair. */
export function scaleRatios(runs: readonly (Measurement & { pets: number })[], small: number, large: number, scenarios: readonly ScenarioName[]): ScaleRatio[] {
  return scenarios.map((scenario) => {
    const at = (pets: number) => runs.filter((r) => r.scenario === scenario && r.pets === pets).sort((a, b) => a.round - b.round);
    const series = (pick: (f: LoadFigures) => number) => medianRatio(at(large).map((r) => pick(r.figures)), at(small).map((r) => pick(r.figures)));
    return { scenario, p50Ratio: series((f) => f.p50Ms), p99Ratio: series((f) => f.p99Ms), reqPerSecRatio: series((f) => f.reqPerSec) };
  });
}

export function scaleVerdict(ratios: readonly ScaleRatio[], large: number): Verdict {
  const deep = ratios.find((r) => r.scenario === 'list-deep');
  return {
    what: `list-deep p50 at ${large.toLocaleString('en-US')} pets`,
    target: `<= ${MAX_SCALE_P50_RATIO}x the p50 at 1,000`,
    measured: shownAtMost(deep?.p50Ratio),
    met: atMost(deep?.p50Ratio, MAX_SCALE_P50_RATIO),
  };
}
