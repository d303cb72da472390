import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LoadFigures } from './load';
import type { ObservedLoad } from './servers';
import { Comparison, MedianFigures, ScaleRatio, ScaleRow, Verdict } from './summary';

const num = (value: number | undefined, digits = 0) =>
  value === undefined ? 'n/a' : value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** A Markdown table: readable in a terminal and pasteable into the README as it is. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i].length)));
  const line = (cells: readonly string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** Above this share of stolen CPU time, a run is flagged. */
export const STEAL_WARNING_SHARE = 0.2;

const FIGURE_HEADER = ['req/s', 'p50 ms', 'p99 ms', 'errors', 'non-2xx', 'RSS MB', 'CPU µs/req'];

function figureCells(f: MedianFigures): string[] {
  return [num(f.reqPerSec), num(f.p50Ms, 1), num(f.p99Ms, 1), num(f.errors), num(f.non2xx), num(f.peakRssMb), num(f.cpuUsPerRequest)];
}

export function progressLine(prefix: string, f: LoadFigures, observed: Omit<ObservedLoad, 'result'>): string {
  const trouble = f.errors || f.non2xx ? `  errors ${f.errors}  non-2xx ${f.non2xx}` : '';
  const cpu = observed.cpuUsPerRequest === undefined ? '' : `  CPU ${num(observed.cpuUsPerRequest)} µs/req`;
  const steal = observed.stealShare === undefined ? '' : `  steal ${num(observed.stealShare * 100)}%`;
  return `${prefix}  ${num(f.reqPerSec).padStart(7)} req/s  p50 ${num(f.p50Ms, 1).padStart(6)} ms  p99 ${num(f.p99Ms, 1).padStart(6)} ms  RSS ${num(observed.peakRssMb)} MB${cpu}${steal}${trouble}`;
}

/** A warning when the hypervisor took much of the machine during some runs, or nothing. */
export function stealWarning(runs: readonly { stealShare?: number }[], threshold = STEAL_WARNING_SHARE): string | undefined {
  const stolen = runs.filter((run) => (run.stealShare ?? 0) > threshold).length;
  if (stolen === 0) return undefined;
  return `Warning: in ${stolen} of ${runs.length} runs the hypervisor took more than ${threshold * 100}% of the machine's CPU (steal): those rounds measure the neighbours as much as the servers.`;
}

/** `reference` names the server on the baseline's side: the baseline, or the floor with `--against`. */
export function comparisonTable(comparisons: readonly Comparison[], reference = 'baseline'): string {
  return table(
    ['scenario', 'server', ...FIGURE_HEADER, 'req/s ratio', 'p50 ratio', 'p99 ratio', 'CPU ratio'],
    comparisons.flatMap((c) => [
      [c.scenario, 'service', ...figureCells(c.service), num(c.reqPerSecRatio, 2), num(c.p50Ratio, 2), num(c.p99Ratio, 2), num(c.cpuRatio, 2)],
      [c.scenario, reference, ...figureCells(c.baseline), '', '', '', ''],
    ]),
  );
}

/** One line per scenario with each round's req/s ratio, in round order. */
export function roundRatioLines(comparisons: readonly Comparison[]): string {
  const width = Math.max(...comparisons.map((c) => c.scenario.length));
  return comparisons.map((c) => `  ${c.scenario.padEnd(width)}  ${c.reqPerSecRatios.map((r) => r.toFixed(2)).join('  ')}`).join('\n');
}

export function verdictTable(verdicts: readonly Verdict[]): string {
  const state = (met: boolean | undefined) => (met === undefined ? 'reported' : met ? 'met' : 'MISSED');
  return table(['target', 'wanted', 'measured', ''], verdicts.map((v) => [v.what, v.target, v.measured, state(v.met)]));
}

export function scaleTable(rows: readonly ScaleRow[], ratios: readonly ScaleRatio[], small: number, large: number): string {
  const figures = table(
    ['pets', 'scenario', ...FIGURE_HEADER],
    rows.map((row) => [num(row.pets), row.scenario, ...figureCells(row.figures)]),
  );
  const scaled = table(
    ['scenario', `p50 ${num(large)} / ${num(small)}`, 'p99 ratio', 'req/s ratio'],
    ratios.map((r) => [r.scenario, num(r.p50Ratio, 2), num(r.p99Ratio, 2), num(r.reqPerSecRatio, 2)]),
  );
  return `${figures}\n\n${scaled}`;
}

/** Writes the run's figures as JSON under `directory` and returns the file's path. */
export function writeResults(directory: string, name: string, results: unknown): string {
  mkdirSync(directory, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const path = join(directory, `${stamp}-${name}.json`);
  writeFileSync(path, `${JSON.stringify(results, null, 2)}\n`);
  return path;
}
