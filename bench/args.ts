import { FLOOR_PARTS, type FloorPart } from './floor/parts';
import { DEFAULT_SCENARIOS, SCENARIO_NAMES, ScenarioName } from './scenarios';

export type BenchStore = 'sqlite' | 'mysql';

export interface BenchOptions {
  readonly store: BenchStore;
  readonly pets: number;
  readonly duration: number;
  readonly warmup: number;
  readonly connections: number;
  readonly rounds: number;
  /** Stretches each server's `duration` is cut into, run alternately with the other server's. */
  readonly slices: number;
  readonly port: number;
  readonly scale: boolean;
  /** The scenarios compared, in this order. */
  readonly scenarios: readonly ScenarioName[];
  /** The card parts of the library floor run in the service's place (empty: NestJS alone); undefined runs the service. */
  readonly floor?: readonly FloorPart[];
  /** The card parts of the library floor run in the baseline's place, so the service is measured against it in the same turns. */
  readonly against?: readonly FloorPart[];
  /** Profile the service, then the baseline, under this scenario instead of comparing. */
  readonly profile?: ScenarioName;
  readonly help: boolean;
}

/** Raised for a command line the bench cannot run; its message is one line. */
export class ArgsError extends Error {}

export const SCALE_SMALL_PETS = 1_000;
export const SCALE_DEFAULT_PETS = 1_000_000;

interface Flag {
  readonly name: string;
  readonly value?: string;
  readonly help: string;
}

const FLAGS: readonly Flag[] = [
  { name: 'store', value: 'sqlite|mysql', help: 'store the service runs on (default sqlite; mysql uses DATABASE_URL or mysql://root@127.0.0.1:3306/animal_store_bench)' },
  { name: 'pets', value: 'N', help: 'pets seeded before the load (default 100000; with --scale 1000000)' },
  { name: 'duration', value: 'S', help: 'seconds of load per scenario (default 10)' },
  { name: 'warmup', value: 'S', help: 'seconds of unmeasured load per server before each scenario, and in a comparison of every scenario once after both servers start (default 2, 0 for none)' },
  { name: 'connections', value: 'N', help: 'concurrent connections (default 50)' },
  { name: 'rounds', value: 'N', help: 'rounds, alternating service and baseline; medians are reported (default 3)' },
  { name: 'slices', value: 'N', help: 'stretches each scenario\'s --duration is cut into per server, run alternately with the other server\'s (default 5; 1 runs each server once in turn)' },
  { name: 'port', value: 'N', help: 'port of the service; the baseline uses the next one (default 3200)' },
  { name: 'scenarios', value: 'A,B', help: `only these scenarios, of ${SCENARIO_NAMES.join(',')} (default ${DEFAULT_SCENARIOS.join(',')})` },
  { name: 'scale', help: 'scale run on MySQL: first and deep page at 1,000 and at --pets pets' },
  { name: 'profile', value: 'SCENARIO', help: `run the service, then the baseline, under node --cpu-prof for one scenario (${SCENARIO_NAMES.join(', ')}) and print the top self-time frames of each` },
  {
    name: 'floor',
    value: 'PARTS',
    help: `in the service's place, the baseline's work inside bare NestJS with these card parts: nest (none), card (all) or a comma list of ${FLOOR_PARTS.join(',')}`,
  },
  {
    name: 'against',
    value: 'PARTS',
    help: "in the baseline's place, the floor with these card parts (as --floor takes them), in the same turns as the service; judged by the floor's targets",
  },
  { name: 'help', help: 'print this help' },
];

export const USAGE = [
  'Usage: npm run bench -- [flags]',
  '',
  'Runs the service (as npm run start:prod) and a bare Fastify baseline doing the same work, alternately,',
  'and prints req/s, p50, p99, errors, non-2xx and server RSS per scenario with the service/baseline ratio.',
  '',
  ...FLAGS.map((flag) => `  --${flag.value ? `${flag.name} ${flag.value}` : flag.name}`.padEnd(28) + flag.help),
].join('\n');

function integer(flag: string, text: string | undefined, min: number, max: number): number {
  if (text === undefined || !/^\d+$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new ArgsError(`--${flag} needs an integer from ${min} to ${max.toLocaleString('en-US')}, got ${text === undefined ? 'nothing' : `"${text}"`}`);
  }
  return Number(text);
}

function floorParts(flag: string, text: string | undefined): FloorPart[] {
  if (text === 'nest') return [];
  if (text === 'card') return [...FLOOR_PARTS];
  const names = (text ?? '').split(',');
  const unknown = names.find((name) => !(FLOOR_PARTS as readonly string[]).includes(name));
  if (unknown !== undefined) throw new ArgsError(`--${flag} takes nest, card or a comma list of ${FLOOR_PARTS.join(',')}, got "${unknown}"`);
  return names as FloorPart[];
}

/** Reads `--flag value` and `--flag=value` forms; anything unknown or out of range is an ArgsError. */
export function parseArgs(argv: readonly string[]): BenchOptions {
  const given = new Map<string, string | undefined>();
  for (let i = 0; i < argv.length; i++) {
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(argv[i]);
    const flag = match && FLAGS.find((candidate) => candidate.name === match[1]);
    if (!match || !flag) throw new ArgsError(`unknown argument "${argv[i]}" (see --help)`);
    if (given.has(flag.name)) throw new ArgsError(`--${flag.name} is given twice`);
    if (!flag.value) {
      if (match[2] !== undefined) throw new ArgsError(`--${flag.name} takes no value`);
      given.set(flag.name, undefined);
    } else if (match[2] !== undefined) {
      given.set(flag.name, match[2]);
    } else {
      const next = argv[i + 1];
      given.set(flag.name, next === undefined || next.startsWith('--') ? undefined : argv[++i]);
    }
  }
  const scale = given.has('scale');
  const store = given.get('store') ?? (scale ? 'mysql' : 'sqlite');
  if (store !== 'sqlite' && store !== 'mysql') throw new ArgsError(`--store must be sqlite or mysql, got "${store}"`);
  if (scale && store !== 'mysql') throw new ArgsError('--scale runs on MySQL only: drop --store sqlite');
  const pets = given.has('pets') ? integer('pets', given.get('pets'), 1_000, 100_000_000) : scale ? SCALE_DEFAULT_PETS : 100_000;
  const profile = given.get('profile');
  if (given.has('profile') && !SCENARIO_NAMES.includes(profile as ScenarioName)) {
    throw new ArgsError(`--profile needs one of ${SCENARIO_NAMES.join(', ')}, got ${profile === undefined ? 'nothing' : `"${profile}"`}`);
  }
  const scenarios = given.has('scenarios') ? (given.get('scenarios') ?? '').split(',') : [...DEFAULT_SCENARIOS];
  const unknown = scenarios.find((name) => !SCENARIO_NAMES.includes(name as ScenarioName));
  if (unknown !== undefined) throw new ArgsError(`--scenarios takes names from ${SCENARIO_NAMES.join(',')}, got "${unknown}"`);
  if (scale && given.has('profile')) throw new ArgsError('--profile and --scale do not go together');
  if (scale && pets <= SCALE_SMALL_PETS) throw new ArgsError(`--pets must be above ${SCALE_SMALL_PETS} for --scale`);
  const floor = given.has('floor') ? floorParts('floor', given.get('floor')) : undefined;
  if (scale && floor) throw new ArgsError('--floor and --scale do not go together');
  const against = given.has('against') ? floorParts('against', given.get('against')) : undefined;
  if (against) {
    const other = ['floor', 'scale', 'profile'].find((name) => given.has(name));
    if (other) throw new ArgsError(`--against and --${other} do not go together`);
    // A keyed create is judged by its share of an unkeyed one against the baseline's own share.
    if (scenarios.includes('create-idempotent')) throw new ArgsError('--against does not run create-idempotent: its target is the baseline\'s own keyed share, so run it without --against');
  }
  const optional = (name: string, fallback: number, min: number, max: number) =>
    given.has(name) ? integer(name, given.get(name), min, max) : fallback;
  const duration = optional('duration', 10, 1, 3_600);
  const slices = optional('slices', Math.min(5, duration), 1, 100);
  if (slices > duration) throw new ArgsError(`--slices ${slices} would cut ${duration} s into stretches under a second: use at most ${duration}`);
  return {
    store,
    pets,
    duration,
    warmup: optional('warmup', 2, 0, 600),
    connections: optional('connections', 50, 1, 10_000),
    rounds: optional('rounds', 3, 1, 100),
    slices,
    port: optional('port', 3200, 1, 65_534),
    scale,
    scenarios: scenarios as ScenarioName[],
    floor,
    against,
    profile: profile as ScenarioName | undefined,
    help: given.has('help'),
  };
}
