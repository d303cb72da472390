import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ModuleKind, ScriptTarget, transpileModule } from 'typescript';

export const ROOT = join(__dirname, '..');
export const RESULTS_DIR = join(ROOT, 'bench', 'results');
const KEYS_CLI = join(ROOT, 'dist', 'keys.js');

/** Builds dist/ when it is missing or older than a source file, through the script `npm run keys` and the deploy specs use too. */
export function ensureBuilt(): void {
  const build = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-if-stale.js')], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (build.status !== 0) throw new Error('nest build failed');
}

function runNode(script: string, args: readonly string[], env: NodeJS.ProcessEnv, what: string): string {
  const run = spawnSync(process.execPath, [script, ...args], { cwd: ROOT, env, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`${what} failed: ${(run.stderr || run.stdout).trim().split('\n').slice(-5).join('\n')}`);
  return run.stdout;
}

/** The service's own migrations, so the bench seeds exactly the schema the service runs on. */
export function migrate(env: NodeJS.ProcessEnv): void {
  runNode(join(ROOT, 'dist', 'database', 'migrate.js'), [], env, 'Migration');
}

export function keysCliExists(): boolean {
  return existsSync(KEYS_CLI);
}

/** An enterprise key whose limits are far above any load the bench makes; the CLI prints it on its last line. */
export function createApiKey(env: NodeJS.ProcessEnv): string {
  const output = runNode(KEYS_CLI, ['create', '--plan', 'enterprise', '--per-minute', '100000000', '--per-day', '1000000000', '--name', 'bench'], env, 'Creating the API key');
  const key = output.trim().split('\n').pop()?.trim();
  if (!key || /\s/.test(key)) throw new Error('Creating the API key printed no key on its last line');
  return key;
}

/**
 * Transpiles bench/<folder>/*.ts to plain JavaScript under bench/results, so
 * that no compiler sits in a measured server's memory or start-up time. These
 * servers import nothing of the service, so a transpile of each file is enough.
 */
function compileFolder(folder: 'baseline' | 'floor'): void {
  const source = join(ROOT, 'bench', folder);
  const target = join(RESULTS_DIR, folder);
  mkdirSync(target, { recursive: true });
  for (const file of readdirSync(source).filter((name) => name.endsWith('.ts') && !name.endsWith('.spec.ts'))) {
    const { outputText } = transpileModule(readFileSync(join(source, file), 'utf8'), {
      compilerOptions: { module: ModuleKind.CommonJS, target: ScriptTarget.ES2022, esModuleInterop: true, experimentalDecorators: true, emitDecoratorMetadata: true },
    });
    writeFileSync(join(target, file.replace(/\.ts$/, '.js')), outputText);
  }
}

/** The bare Fastify baseline, compiled; answers the script to run. */
export function compileBaseline(): string {
  compileFolder('baseline');
  return join(RESULTS_DIR, 'baseline', 'server.js');
}

/** The library floor (bench/floor); it imports the baseline's work, so compile the baseline first. */
export function compileFloor(): string {
  compileFolder('floor');
  return join(RESULTS_DIR, 'floor', 'server.js');
}

/**
 * The service's node arguments as `npm run start:prod` gives them, so that the
 * bench runs the service as it ships; it ships on V8's defaults, as the
 * baseline and the floor run.
 */
export function serviceArgs(): string[] {
  const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  if (scripts['start:prod'] !== 'node dist/main.js') throw new Error(`start:prod is not "node dist/main.js": ${scripts['start:prod']}`);
  return [join(ROOT, 'dist', 'main.js')];
}
