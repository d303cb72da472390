/** The parts of a V8 .cpuprofile (as `node --cpu-prof` writes it) that self time needs. */
export interface CpuProfile {
  readonly nodes: readonly { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface SelfTime {
  readonly name: string;
  readonly ms: number;
  readonly share: number;
}

/** Where a frame lives: a package under node_modules, a file of ours, or V8/Node itself. */
export function frameOwner(url: string): string {
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (inPackage) return inPackage[1];
  if (!url) return '(native)';
  if (url.startsWith('node:')) return 'node';
  return url.replace(/^file:\/\//, '').replace(/^.*?\/(dist|src|bench)\//, '$1/');
}

function tally(profile: CpuProfile, keyOf: (node: CpuProfile['nodes'][number]) => string, top: number): SelfTime[] {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const totals = new Map<string, number>();
  let all = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    const delta = profile.timeDeltas[i] ?? 0;
    if (!node) return;
    const key = keyOf(node);
    totals.set(key, (totals.get(key) ?? 0) + delta);
    all += delta;
  });
  return [...totals]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, micros]) => ({ name, ms: micros / 1000, share: all ? micros / all : 0 }));
}

/** The functions that spent the most time on the CPU themselves, callees excluded. */
export function topSelfTime(profile: CpuProfile, top = 25): SelfTime[] {
  return tally(profile, ({ callFrame: f }) => `${f.functionName || '(anonymous)'} ${frameOwner(f.url)}:${f.lineNumber + 1}`, top);
}

/** Self time summed per package or file: which layer of the stack the time goes to. */
export function selfTimeByOwner(profile: CpuProfile, top = 15): SelfTime[] {
  return tally(profile, ({ callFrame: f }) => (f.url ? frameOwner(f.url) : f.functionName), top);
}
