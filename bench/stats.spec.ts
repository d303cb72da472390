import { roundRatioLines, stealWarning } from './report';
import { readCpuMs, readMachineTicks, RunningServer, ServerWatch, stealShare } from './servers';
import { median, medianRatio, ratio, roundRatios } from './stats';
import { compare, Measurement, scaleRatios, verdicts } from './summary';

describe('median', () => {
  it('takes the middle of an odd count, whatever the order', () => {
    expect(median([9, 1, 5])).toBe(5);
  });

  it('averages the two middle values of an even count', () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('refuses an empty series rather than inventing a figure', () => {
    expect(() => median([])).toThrow('median of no values');
  });
});

describe('ratio', () => {
  it('divides by the reference', () => {
    expect(ratio(800, 1000)).toBe(0.8);
  });

  it('is undefined without a positive reference', () => {
    expect(ratio(5, 0)).toBeUndefined();
    expect(ratio(5, NaN)).toBeUndefined();
  });

  it('takes the median of the per-round ratios, not the ratio of the medians', () => {
    // Rounds: 1.0, 0.5, 0.9 -> 0.9; the ratio of the medians would be 100 / 200 = 0.5.
    expect(medianRatio([100, 100, 900], [100, 200, 1000])).toBeCloseTo(0.9);
  });

  it('lists the per-round ratios in round order, leaving out rounds without a reference', () => {
    expect(roundRatios([100, 100, 900, 50], [100, 200, 1000, 0])).toEqual([1, 0.5, 0.9]);
    expect(() => roundRatios([1, 2], [1])).toThrow('ratio of series of different lengths');
  });
});

const run = (round: number, target: 'service' | 'baseline', reqPerSec: number, p99Ms: number): Measurement => ({
  round,
  target,
  scenario: 'get',
  figures: { reqPerSec, p50Ms: p99Ms / 4, p99Ms, errors: round === 2 ? 1 : 0, non2xx: 0, total: reqPerSec * 10 },
  peakRssMb: 100 + round,
  // The service costs twice the baseline's CPU per request in round 1, three times in rounds 2 and 3.
  cpuUsPerRequest: target === 'baseline' ? 50 : round === 1 ? 100 : 150,
});

describe('compare', () => {
  const measurements = [
    run(1, 'service', 900, 20),
    run(1, 'baseline', 1000, 10),
    run(2, 'baseline', 500, 40),
    run(2, 'service', 400, 40),
    run(3, 'service', 1200, 12),
    run(3, 'baseline', 1000, 12),
  ];

  it('pairs each round of the service with the same round of the baseline', () => {
    const [get] = compare(measurements, ['get']);
    expect(get.reqPerSecRatio).toBeCloseTo(0.9); // rounds 0.9, 0.8, 1.2
    expect(get.p99Ratio).toBeCloseTo(1); // rounds 2, 1, 1
    expect(get.service).toEqual({ reqPerSec: 900, p50Ms: 5, p99Ms: 20, errors: 1, non2xx: 0, peakRssMb: 102, cpuUsPerRequest: 150 });
    expect(get.cpuRatio).toBeCloseTo(3); // rounds 2, 3, 3
  });

  it('keeps each round\'s req/s ratio in round order and prints them', () => {
    const [get] = compare(measurements, ['get']);
    expect(get.reqPerSecRatios.map((r) => Number(r.toFixed(2)))).toEqual([0.9, 0.8, 1.2]);
    expect(roundRatioLines([get])).toBe('  get  0.90  0.80  1.20');
  });

  it('leaves the CPU ratio out when the server CPU time could not be read', () => {
    const unread = measurements.map((m) => ({ ...m, cpuUsPerRequest: undefined }));
    const [get] = compare(unread, ['get']);
    expect(get.cpuRatio).toBeUndefined();
    expect(get.service.cpuUsPerRequest).toBeUndefined();
  });

  it('marks each target met or missed', () => {
    const table = verdicts(compare(measurements, ['get']), 2_500, true);
    expect(table).toEqual([
      { what: 'get req/s', target: '>= 0.80x baseline', measured: '0.90x', met: true },
      { what: 'get p99', target: '<= 1.5x baseline', measured: '1.00x', met: true },
      { what: 'service startup to ready', target: '< 2000 ms', measured: '2500 ms', met: false },
    ]);
  });

  it('compares the creates with a key to those without, on each server', () => {
    const create = (scenario: 'create' | 'create-idempotent', target: 'service' | 'baseline', reqPerSec: number) => ({ ...run(1, target, reqPerSec, 10), scenario });
    const creates = [create('create', 'service', 1000), create('create', 'baseline', 2000), create('create-idempotent', 'service', 750), create('create-idempotent', 'baseline', 1400)];
    expect(verdicts(compare(creates, ['create', 'create-idempotent']), 500, true)).toContainEqual({
      what: 'create-idempotent req/s, of create',
      target: ">= 0.80x the service's create",
      measured: '0.75x (baseline: 0.70x)',
      met: false,
    });
  });
});

describe('scaleRatios', () => {
  it('divides the large store by the small one round by round', () => {
    const at = (pets: number, round: number, p50Ms: number) => ({
      ...run(round, 'service', 1000, p50Ms * 2),
      scenario: 'list-deep' as const,
      figures: { reqPerSec: 1000, p50Ms, p99Ms: p50Ms * 2, errors: 0, non2xx: 0, total: 1 },
      pets,
    });
    const runs = [at(1_000, 1, 10), at(1_000_000, 1, 12), at(1_000, 2, 10), at(1_000_000, 2, 30), at(1_000, 3, 10), at(1_000_000, 3, 11)];
    expect(scaleRatios(runs, 1_000, 1_000_000, ['list-deep'])).toEqual([
      { scenario: 'list-deep', p50Ratio: 1.2, p99Ratio: 1.2, reqPerSecRatio: 1 },
    ]);
  });
});

describe('ServerWatch', () => {
  /** Keeps this process on the CPU until its own CPU time has grown by `ms`. */
  const burn = (ms: number) => {
    const start = readCpuMs(process.pid)!;
    const deadline = Date.now() + 10_000;
    while (readCpuMs(process.pid)! - start < ms && Date.now() < deadline);
  };
  // This process stands in for the server; its RSS readings rise by 10 MB at each one.
  let rss = 100;
  const server: RunningServer = { pid: process.pid, startupMs: 0, rssMb: () => (rss += 10), stop: async () => undefined };

  it('sums CPU time over its stretches only, not the gaps between them, and keeps the peak RSS', async () => {
    const watch = new ServerWatch(server);
    await watch.during(async () => burn(60));
    burn(300); // another server's turn: not this one's work
    await watch.during(async () => burn(60));
    const observed = watch.observed(1_000);
    // 120 ms over 1,000 requests is 120 µs each; the 300 ms between the stretches must not count.
    expect(observed.cpuUsPerRequest).toBeGreaterThanOrEqual(120);
    expect(observed.cpuUsPerRequest).toBeLessThan(300);
    expect(observed.peakRssMb).toBe(rss);
    expect(observed.stealShare).toBeGreaterThanOrEqual(0);
  });

  it('reports no CPU figure for no requests', async () => {
    const watch = new ServerWatch(server);
    await watch.during(async () => undefined);
    expect(watch.observed(0).cpuUsPerRequest).toBeUndefined();
  });
});

describe('readCpuMs', () => {
  it('reads a live process CPU time, which grows as it works', () => {
    const before = readCpuMs(process.pid)!;
    expect(before).toBeGreaterThan(0);
    // Keep this process on the CPU until its time has grown 50 ms, for at most 10 s of wall time.
    const deadline = Date.now() + 10_000;
    let after = before;
    while (after - before < 50 && Date.now() < deadline) after = readCpuMs(process.pid)!;
    expect(after - before).toBeGreaterThanOrEqual(50);
  });

  it('is undefined for a process that does not exist', () => {
    expect(readCpuMs(2 ** 30)).toBeUndefined();
  });
});

describe('steal', () => {
  it('reads the machine ticks, steal included, and they only grow', () => {
    const before = readMachineTicks()!;
    const until = Date.now() + 50;
    while (Date.now() < until); // let some ticks pass
    const after = readMachineTicks()!;
    expect(before.total).toBeGreaterThan(0);
    expect(before.steal).toBeGreaterThanOrEqual(0);
    expect(after.total).toBeGreaterThanOrEqual(before.total);
    expect(after.steal).toBeGreaterThanOrEqual(before.steal);
  });

  it('is the stolen share of the ticks between two readings', () => {
    expect(stealShare({ total: 1_000, steal: 10 }, { total: 1_400, steal: 110 })).toBeCloseTo(0.25);
    expect(stealShare({ total: 1_000, steal: 10 }, { total: 1_000, steal: 10 })).toBeUndefined();
    expect(stealShare(undefined, { total: 1_400, steal: 110 })).toBeUndefined();
  });

  it('warns when some runs lost more than a fifth of the machine, and only then', () => {
    expect(stealWarning([{ stealShare: 0.05 }, { stealShare: undefined }, { stealShare: 0.2 }])).toBeUndefined();
    expect(stealWarning([{ stealShare: 0.75 }, { stealShare: 0.01 }, { stealShare: 0.3 }])).toMatch(/^Warning: in 2 of 3 runs the hypervisor took more than 20%/);
  });
});
