import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { interleave, LoadSettings, mergeStretches, runStretch } from './load';
import { Scenario } from './scenarios';

describe('interleave', () => {
  it('gives each member a turn per slice, mirrored slice by slice', () => {
    expect(interleave(['service', 'baseline'], 3)).toEqual(['service', 'baseline', 'baseline', 'service', 'service', 'baseline']);
    expect(interleave(['baseline', 'service'], 2)).toEqual(['baseline', 'service', 'service', 'baseline']);
  });

  it('runs each member once, in the order given, with one slice', () => {
    expect(interleave(['baseline', 'service'], 1)).toEqual(['baseline', 'service']);
  });
});

describe('mergeStretches', () => {
  // Long enough that each connection gets at most one or two slow answers a second, however loaded the machine.
  const SLOW_MS = 500;
  const SLOW_STRETCH_SECONDS = 3;
  let server: Server;
  let settings: LoadSettings;
  // `/slow` answers after SLOW_MS; `/fail` answers 500 at once; anything else 200 at once.
  beforeAll(async () => {
    server = createServer((request, response) => {
      if (request.url === '/slow') setTimeout(() => response.end('{}'), SLOW_MS);
      else response.writeHead(request.url === '/fail' ? 500 : 200).end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    settings = { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: 4, duration: 1, headers: {} };
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const scenario = (path: string): Scenario => ({ name: 'get', describe: path, request: { method: 'GET', path } });

  it('sums requests, seconds and failures over the stretches', async () => {
    const fast = await runStretch(scenario('/'), settings, 1);
    const failing = await runStretch(scenario('/fail'), settings, 1);
    const merged = mergeStretches([fast, failing], settings);

    expect(fast.totalCompletedRequests).toBeGreaterThan(0);
    expect(failing.non2xx).toBeGreaterThan(0);
    expect(merged.total).toBe(fast.totalCompletedRequests + failing.totalCompletedRequests);
    expect(merged.reqPerSec).toBeCloseTo(merged.total / (fast.duration + failing.duration), 6);
    expect(merged.non2xx).toBe(failing.non2xx);
    expect(merged.errors).toBe(0);
  });

  it('reads percentiles from the merged latencies, where the many fast answers outweigh the few slow ones', async () => {
    const fast = await runStretch(scenario('/'), settings, 1);
    // Several slow periods, so that a machine busy with other suites still completes some slow answers.
    const slow = await runStretch(scenario('/slow'), settings, SLOW_STRETCH_SECONDS);
    const alone = (stretch: typeof fast) => mergeStretches([stretch], settings);
    expect(slow.totalCompletedRequests).toBeGreaterThan(0);
    expect(alone(slow).p50Ms).toBeGreaterThanOrEqual(SLOW_MS);
    // More than twice as many fast answers as slow ones, so the merged median falls among the fast.
    expect(fast.totalCompletedRequests).toBeGreaterThan(2 * slow.totalCompletedRequests);

    const merged = mergeStretches([fast, slow], settings);
    // Averaging the two medians would put this at SLOW_MS / 2 or more.
    expect(merged.p50Ms).toBeLessThan(SLOW_MS / 2);
  });

  it('refuses to merge nothing', () => {
    expect(() => mergeStretches([], settings)).toThrow('mergeStretches needs at least one stretch');
  });
});
