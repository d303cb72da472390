import type { Comparison, MedianFigures } from './summary';
import { floorVerdicts } from './summary';

const figures = (peakRssMb: number): MedianFigures => ({ reqPerSec: 1000, p50Ms: 5, p99Ms: 20, errors: 0, non2xx: 0, peakRssMb, cpuUsPerRequest: 100 });

function comparison(ratios: { req: number; cpu: number; p99: number }, rssMb: number): Comparison {
  return {
    scenario: 'get',
    service: figures(rssMb),
    baseline: figures(150),
    reqPerSecRatio: ratios.req,
    reqPerSecRatios: [ratios.req],
    p50Ratio: 1,
    p99Ratio: ratios.p99,
    cpuRatio: ratios.cpu,
  };
}

const states = (comparisons: Comparison[]) => floorVerdicts(comparisons).map((v) => [v.what, v.measured, v.met]);

describe('floorVerdicts', () => {
  it('judges each scenario by the floor\'s three targets, met at their limits', () => {
    expect(states([comparison({ req: 0.9, cpu: 1.15, p99: 1.3 }, 199)])).toEqual([
      ['get req/s', '0.90x', true],
      ['get CPU per request', '1.15x', true],
      ['get p99', '1.30x', true],
    ]);
  });

  it('marks each target missed just past its limit', () => {
    expect(states([comparison({ req: 0.89, cpu: 1.16, p99: 1.31 }, 200)]).map(([, , met]) => met)).toEqual([false, false, false]);
  });

  it('shows a ratio rounded towards missing its limit, so a miss never reads as the limit itself', () => {
    expect(states([comparison({ req: 0.8989, cpu: 1.1501, p99: 1.3001 }, 150)]).slice(0, 3)).toEqual([
      ['get req/s', '0.89x', false],
      ['get CPU per request', '1.16x', false],
      ['get p99', '1.31x', false],
    ]);
  });

  it('shows a ratio that is exactly two decimals as it is', () => {
    expect(states([comparison({ req: 0.57, cpu: 1.1, p99: 1.13 }, 150)]).slice(0, 3)).toEqual([
      ['get req/s', '0.57x', false],
      ['get CPU per request', '1.10x', true],
      ['get p99', '1.13x', true],
    ]);
  });

  it('reports a measure the run did not take, neither met nor missed', () => {
    const unmeasured = { ...comparison({ req: 1, cpu: 1, p99: 1 }, 150), cpuRatio: undefined, service: { ...figures(150), peakRssMb: undefined } };
    expect(states([unmeasured])).toEqual([
      ['get req/s', '1.00x', true],
      ['get CPU per request', 'n/a', undefined],
      ['get p99', '1.00x', true],
    ]);
  });
});
