import { spawnSync } from 'node:child_process';
import { HEAP_GROWING_PERCENT, limitHeapGrowth } from './heap-growth';

describe('limitHeapGrowth', () => {
  it('sets V8 heap growth when the process was started without it', () => {
    const set: string[] = [];
    expect(limitHeapGrowth(['--enable-source-maps'], (flags) => set.push(flags))).toBe(true);
    expect(set).toEqual([`--heap-growing-percent=${HEAP_GROWING_PERCENT}`]);
  });

  it.each([[['--heap-growing-percent=20']], [['--heap_growing_percent=20']]])('keeps the value the operator started node with: %j', (execArgv) => {
    const set: string[] = [];
    expect(limitHeapGrowth(execArgv, (flags) => set.push(flags))).toBe(false);
    expect(set).toEqual([]);
  });

  it('names a flag this V8 knows, so setting it is not silently ignored', () => {
    const options = spawnSync(process.execPath, ['--v8-options'], { encoding: 'utf8' }).stdout;
    expect(options).toMatch(/^\s*--heap-growing-percent\b/m);
  });
});
