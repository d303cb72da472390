import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { ArgsError, BenchOptions, parseArgs, SCALE_SMALL_PETS, USAGE } from './args';
import { BenchDatabase, DEFAULT_MYSQL_URL, mysqlDatabase, removePetsAfter, seedPets, sqliteDatabase } from './database';
import { interleave, LoadSettings, LoadStretch, mergeStretches, runLoad, runStretch } from './load';
import { compileBaseline, compileFloor, createApiKey, ensureBuilt, keysCliExists, migrate, RESULTS_DIR, serviceArgs } from './prepare';
import { CpuProfile, selfTimeByOwner, SelfTime, topSelfTime } from './cpu-profile';
import { comparisonTable, progressLine, roundRatioLines, scaleTable, stealWarning, table, verdictTable, writeResults } from './report';
import { buildScenarios, Scenario, ScenarioName } from './scenarios';
import { ObservedLoad, observeServer, RunningServer, ServerWatch, startServer } from './servers';
import { median } from './stats';
import { compare, floorVerdicts, Measurement, medianFigures, scaleRatios, scaleVerdict, Target, verdicts } from './summary';

const say = (line: string) => process.stdout.write(`${line}\n`);

/** Ready as the service defines it: its liveness endpoint answers. */
const READY_PATH = '/healthz';

const SCALED: readonly ScenarioName[] = ['list-first', 'list-deep'];

/** What the service, the baseline, the migrations and the key CLI all run with. */
function serverEnv(database: BenchDatabase, port: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: database.url,
    PORT: String(port),
    HOST: '127.0.0.1',
    APP_ENV: 'production',
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}/v1`,
    NODE_ENV: 'production',
    ALLOW_SQLITE_IN_PRODUCTION: 'true',
    LOG_LEVEL: 'warn',
  };
  // Counters in memory on both sides: the baseline has no Redis either.
  delete env.REDIS_URL;
  delete env.RATE_LIMIT_PLANS;
  delete env.BENCH_API_KEY;
  return env;
}

interface Prepared {
  readonly database: BenchDatabase;
  readonly apiKey?: string;
}

async function prepareDatabase(database: BenchDatabase, pets: number, port: number): Promise<Prepared> {
  migrate(serverEnv(database, port));
  const started = Date.now();
  say(`Seeding ${pets.toLocaleString('en-US')} pets into ${database.label}...`);
  const seeded = await seedPets(database, pets, (done) => say(`  ${done.toLocaleString('en-US')} pets...`));
  say(seeded ? `  seeded in ${((Date.now() - started) / 1000).toFixed(1)} s` : '  already holds exactly those pets: kept');
  if (!keysCliExists()) {
    say('WARNING: dist/keys.js does not exist yet: running without an API key.');
    return { database };
  }
  return { database, apiKey: createApiKey(serverEnv(database, port)) };
}

interface Profiling {
  readonly directory: string;
}

/** Lets a profiled server exit cleanly on SIGUSR2, which is when node --cpu-prof writes the profile. */
const EXIT_ON_SIGUSR2 = 'data:text/javascript,process.on("SIGUSR2",()=>process.exit(0))';

/**
 * What runs on each side: the service as `npm run start:prod` starts it, or
 * the library floor in its place with `--floor`; the bare baseline, or the
 * floor in its place with `--against`. All of them run on V8's defaults.
 */
interface Scripts {
  /** Node's arguments for the service's side. */
  readonly service: readonly string[];
  /** Node's arguments for the baseline's side. */
  readonly baseline?: readonly string[];
  /** The card parts the floor runs with on the service's side; undefined when the service itself runs. */
  readonly floor?: readonly string[];
  /** The card parts the floor runs with on the baseline's side; undefined when the baseline runs. */
  readonly against?: readonly string[];
}

function scriptsFor(options: BenchOptions): Scripts {
  // The floor runs the baseline's compiled work, so the baseline is compiled either way.
  const baseline = [compileBaseline()];
  const floorArgs = () => [compileFloor()];
  if (options.against) return { service: serviceArgs(), baseline: floorArgs(), against: options.against };
  return options.floor ? { service: floorArgs(), baseline, floor: options.floor } : { service: serviceArgs(), baseline };
}

/** What the report calls the server on the baseline's side. */
function referenceName(scripts: Scripts): string {
  return scripts.against ? 'floor' : 'baseline';
}

function startTarget(target: Target, prepared: Prepared, port: number, scripts: Scripts, round: number, profiling?: Profiling): Promise<RunningServer> {
  const env = serverEnv(prepared.database, port);
  const floor = target === 'service' ? scripts.floor : scripts.against;
  if (floor) env.FLOOR_PARTS = floor.join(',');
  // The baseline and the floor check the key against this one hash; the service reads its keys from the store.
  if ((target === 'baseline' || floor) && prepared.apiKey) env.BENCH_API_KEY = prepared.apiKey;
  const profile = profiling ? ['--cpu-prof', '--cpu-prof-dir', profiling.directory, '--import', EXIT_ON_SIGUSR2] : [];
  const name = target === 'service' ? target : referenceName(scripts);
  return startServer({
    label: name,
    command: process.execPath,
    args: [...profile, ...(target === 'service' ? scripts.service : scripts.baseline!)],
    env,
    readyUrl: `http://127.0.0.1:${port}${READY_PATH}`,
    readyHeaders: authHeaders(prepared.apiKey),
    logFile: join(RESULTS_DIR, `${name}-round${round}.log`),
    stopSignal: profiling ? 'SIGUSR2' : undefined,
  });
}

function authHeaders(apiKey: string | undefined): Record<string, string> {
  return apiKey ? { authorization: `Bearer ${apiKey}` } : {};
}

function loadSettings(port: number, options: BenchOptions, apiKey: string | undefined): LoadSettings {
  return { baseUrl: `http://127.0.0.1:${port}`, connections: options.connections, duration: options.duration, headers: authHeaders(apiKey) };
}

/** One server under one scenario: a warm-up, then `--duration` seconds in one stretch. */
async function measure(server: RunningServer, scenario: Scenario, port: number, options: BenchOptions, apiKey: string | undefined): Promise<ObservedLoad> {
  const settings = loadSettings(port, options, apiKey);
  if (options.warmup > 0) await runLoad(scenario, settings, options.warmup);
  return observeServer(server, () => runLoad(scenario, settings));
}

/**
 * Both servers under one scenario: a warm-up each, then `--duration` seconds
 * each, cut into `--slices` stretches taken in turns (A B, B A, ...), so that
 * the two figures of a ratio come from the same seconds of the machine's
 * life, however its speed drifts. Each server's stretches are merged into one set of figures.
 */
async function measureInTurns(
  servers: ReadonlyMap<Target, RunningServer>,
  portOf: (target: Target) => number,
  order: readonly [Target, Target],
  scenario: Scenario,
  options: BenchOptions,
  apiKey: string | undefined,
): Promise<Map<Target, ObservedLoad>> {
  const settings = new Map(order.map((target) => [target, loadSettings(portOf(target), options, apiKey)]));
  if (options.warmup > 0) for (const target of order) await runLoad(scenario, settings.get(target)!, options.warmup);
  const watches = new Map(order.map((target) => [target, new ServerWatch(servers.get(target)!)]));
  const stretches = new Map<Target, LoadStretch[]>(order.map((target) => [target, []]));
  for (const target of interleave(order, options.slices)) {
    const stretch = await watches.get(target)!.during(() => runStretch(scenario, settings.get(target)!, options.duration / options.slices));
    stretches.get(target)!.push(stretch);
  }
  return new Map(
    order.map((target) => {
      const result = mergeStretches(stretches.get(target)!, settings.get(target)!);
      return [target, { result, ...watches.get(target)!.observed(result.total) }];
    }),
  );
}

/**
 * A fresh process compiles its hot code and grows its heap over its first
 * thousands of requests, the more so the more code it runs: each server takes
 * every scenario once, unmeasured, before any is measured, so that the first
 * scenario of a round does not carry the start alone.
 */
async function warmUpEveryScenario(
  order: readonly [Target, Target],
  portOf: (target: Target) => number,
  scenarios: Record<ScenarioName, Scenario>,
  options: BenchOptions,
  apiKey: string | undefined,
  database: BenchDatabase,
): Promise<void> {
  for (const name of options.scenarios) {
    for (const target of order) await runLoad(scenarios[name], loadSettings(portOf(target), options, apiKey), options.warmup);
    await removePetsAfter(database, options.pets);
  }
}

function describeRun(options: BenchOptions, database: BenchDatabase): Record<string, unknown> {
  return {
    command: `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim(),
    date: new Date().toISOString(),
    options,
    database: database.label,
    node: process.version,
    cpus: `${cpus().length} x ${cpus()[0]?.model ?? 'unknown'}`,
    readyPath: READY_PATH,
  };
}

async function runComparison(options: BenchOptions): Promise<void> {
  const database =
    options.store === 'sqlite' ? sqliteDatabase(RESULTS_DIR, options.pets) : await mysqlDatabase(mysqlUrl());
  const prepared = await prepareDatabase(database, options.pets, options.port);
  const scripts = scriptsFor(options);
  if (scripts.floor) say(floorLine(scripts.floor));
  if (scripts.against) say(againstLine(scripts.against));
  const reference = referenceName(scripts);
  const label = (target: Target) => (target === 'service' ? target : reference).padEnd(8);
  const scenarios = buildScenarios(options.pets);
  const measurements: Measurement[] = [];
  const startups: { round: number; target: Target; ms: number }[] = [];
  const perTarget = options.scenarios.length * (options.duration + 2 * options.warmup) + 3;
  say(`${options.rounds} rounds of service and ${reference}, ${options.scenarios.length} scenarios of ${options.duration} s each in ${options.slices} turns at ${options.connections} connections: about ${Math.ceil((options.rounds * 2 * perTarget) / 60)} min`);
  const portOf = (target: Target) => (target === 'service' ? options.port : options.port + 1);
  for (let round = 1; round <= options.rounds; round++) {
    // Alternate which server goes first, so a slow drift of the machine does not favour one side.
    const order: [Target, Target] = round % 2 ? ['service', 'baseline'] : ['baseline', 'service'];
    const servers = new Map<Target, RunningServer>();
    try {
      for (const target of order) {
        const server = await startTarget(target, prepared, portOf(target), scripts, round);
        servers.set(target, server);
        startups.push({ round, target, ms: server.startupMs });
        say(`[round ${round}/${options.rounds}] ${label(target)} ready in ${server.startupMs.toFixed(0)} ms`);
      }
      if (options.warmup > 0) {
        await warmUpEveryScenario(order, portOf, scenarios, options, prepared.apiKey, database);
        say(`[round ${round}/${options.rounds}] both warmed up: every scenario, ${options.warmup} s each, unmeasured`);
      }
      // Both servers stay up and take each scenario in turns, so the two figures of a
      // ratio are taken over the same stretch of time, not a whole server's run apart.
      for (const name of options.scenarios) {
        const observed = await measureInTurns(servers, portOf, order, scenarios[name], options, prepared.apiKey);
        await removePetsAfter(database, options.pets);
        for (const target of order) {
          const { result, ...watched } = observed.get(target)!;
          measurements.push({ round, target, scenario: name, figures: result, ...watched });
          say(progressLine(`[round ${round}/${options.rounds}] ${label(target)} ${name.padEnd(10)}`, result, watched));
        }
      }
    } finally {
      for (const server of servers.values()) await server.stop();
    }
  }
  const comparisons = compare(measurements, options.scenarios);
  const startupOf = (target: Target) => median(startups.filter((s) => s.target === target).map((s) => s.ms));
  const targets = scripts.against ? floorVerdicts(comparisons) : verdicts(comparisons, startupOf('service'), options.store === 'sqlite');
  say('');
  say(`Medians of ${options.rounds} rounds on ${options.store} with ${options.pets.toLocaleString('en-US')} pets (ratios: median of the per-round service/${reference} ratios)`);
  say(comparisonTable(comparisons, reference));
  say('');
  say('req/s ratio of each round, in order (the median is the figure above):');
  say(roundRatioLines(comparisons));
  say('');
  say(`Startup to a ready ${READY_PATH}: service ${startupOf('service').toFixed(0)} ms, ${reference} ${startupOf('baseline').toFixed(0)} ms (medians)`);
  say('');
  say(verdictTable(targets));
  warnOfSteal(measurements);
  const file = writeResults(RESULTS_DIR, `bench-${options.store}`, {
    ...describeRun(options, database),
    keyed: prepared.apiKey !== undefined,
    // The server the ratios divide by; its figures are under "baseline" either way.
    reference,
    scenarios: Object.fromEntries(options.scenarios.map((name) => [name, scenarios[name].describe])),
    comparisons,
    startupMs: { service: startupOf('service'), baseline: startupOf('baseline'), samples: startups },
    targets,
    measurements,
  });
  say(`\nFigures written to ${file}`);
}

async function runScale(options: BenchOptions): Promise<void> {
  const sizes = [SCALE_SMALL_PETS, options.pets];
  const prepared = new Map<number, Prepared>();
  for (const pets of sizes) prepared.set(pets, await prepareDatabase(await mysqlDatabase(mysqlUrl(), `_${pets}`), pets, options.port));
  const runs: (Measurement & { pets: number })[] = [];
  for (let round = 1; round <= options.rounds; round++) {
    const order = round % 2 ? sizes : [...sizes].reverse();
    for (const pets of order) {
      const setup = prepared.get(pets)!;
      const scenarios = buildScenarios(pets);
      const server = await startTarget('service', setup, options.port, { service: serviceArgs() }, round);
      try {
        for (const name of SCALED) {
          const { result, ...observed } = await measure(server, scenarios[name], options.port, options, setup.apiKey);
          runs.push({ round, target: 'service', scenario: name, figures: result, ...observed, pets });
          say(progressLine(`[round ${round}/${options.rounds}] ${pets.toLocaleString('en-US').padStart(11)} pets ${name.padEnd(10)}`, result, observed));
        }
      } finally {
        await server.stop();
      }
    }
  }
  const rows = sizes.flatMap((pets) =>
    SCALED.map((scenario) => ({ pets, scenario, figures: medianFigures(runs.filter((r) => r.pets === pets && r.scenario === scenario)) })),
  );
  const ratios = scaleRatios(runs, SCALE_SMALL_PETS, options.pets, SCALED);
  const verdict = scaleVerdict(ratios, options.pets);
  say('');
  say(`Scale run on MySQL, medians of ${options.rounds} rounds (ratios: median of the per-round large/small ratios)`);
  say(scaleTable(rows, ratios, SCALE_SMALL_PETS, options.pets));
  say('');
  say(verdictTable([verdict]));
  warnOfSteal(runs);
  const file = writeResults(RESULTS_DIR, 'scale-mysql', {
    ...describeRun(options, prepared.get(options.pets)!.database),
    keyed: prepared.get(options.pets)!.apiKey !== undefined,
    rows,
    ratios,
    targets: [verdict],
    measurements: runs,
  });
  say(`\nFigures written to ${file}`);
}

async function runProfile(options: BenchOptions, scenario: ScenarioName): Promise<void> {
  const database = options.store === 'sqlite' ? sqliteDatabase(RESULTS_DIR, options.pets) : await mysqlDatabase(mysqlUrl());
  const prepared = await prepareDatabase(database, options.pets, options.port);
  const scripts = scriptsFor(options);
  if (scripts.floor) say(floorLine(scripts.floor));
  // The baseline too, under the same load: its frames show what the work itself costs.
  for (const target of ['service', 'baseline'] as const) {
    const directory = mkdtempSync(join(RESULTS_DIR, `profile-${target}-`));
    const port = target === 'service' ? options.port : options.port + 1;
    const server = await startTarget(target, prepared, port, scripts, 0, { directory });
    try {
      const { result, ...observed } = await measure(server, buildScenarios(options.pets)[scenario], port, options, prepared.apiKey);
      say(progressLine(`[profile] ${target.padEnd(8)} ${scenario}`, result, observed));
    } finally {
      await server.stop();
      await removePetsAfter(database, options.pets);
    }
    const [file] = readdirSync(directory).filter((name) => name.endsWith('.cpuprofile'));
    if (!file) throw new Error(`The ${target} wrote no profile into ${directory}`);
    const profile = JSON.parse(readFileSync(join(directory, file), 'utf8')) as CpuProfile;
    const rows = (entries: SelfTime[]) => entries.map((e) => [e.name, e.ms.toFixed(0), `${(e.share * 100).toFixed(1)}%`]);
    say(`\n${target}: self time by package or file (${join(directory, file)}):`);
    say(table(['where', 'ms', 'share'], rows(selfTimeByOwner(profile))));
    say(`\n${target}: top functions by self time:`);
    say(table(['function', 'ms', 'share'], rows(topSelfTime(profile))));
    say('');
  }
}

function floorWork(parts: readonly string[]): string {
  return `the baseline's work in ${parts.length ? `NestJS with ${new Intl.ListFormat('en-GB').format(parts)}` : 'NestJS alone'}`;
}

function floorLine(parts: readonly string[]): string {
  return `In the service's place: the library floor (bench/floor), ${floorWork(parts)}; "service" below means the floor.`;
}

function againstLine(parts: readonly string[]): string {
  return `In the baseline's place: the library floor (bench/floor), ${floorWork(parts)}; the ratios are the service's to it, judged by the floor's targets.`;
}

function warnOfSteal(runs: readonly Measurement[]): void {
  const warning = stealWarning(runs);
  if (warning) say(`\n${warning}`);
}

function mysqlUrl(): string {
  const configured = process.env.DATABASE_URL;
  return configured && /^(mysql|mariadb):\/\//.test(configured) ? configured : DEFAULT_MYSQL_URL;
}

async function main(): Promise<void> {
  let options: BenchOptions;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof ArgsError)) throw error;
    process.stderr.write(`bench: ${error.message}\n`);
    process.exit(2);
  }
  if (options.help) {
    say(USAGE);
    return;
  }
  ensureBuilt();
  if (options.profile) await runProfile(options, options.profile);
  else await (options.scale ? runScale(options) : runComparison(options));
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
