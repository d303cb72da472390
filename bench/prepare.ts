import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ModuleKind, ScriptTarget, transpileModule } from 'typescript';

export const ROOT = join(__dirname, '..');
export const RESULTS_DIR = join(ROOT, 'bench', 'results');
const MAIN = join(ROOT, 'dist', 'main.js');
const KEYS_CLI = join(ROOT, 'dist', 'auth', 'cli', 'keys.js');

function newestSource(directory: string): number {
  return readdirSync(directory, { withFileTypes: true }).reduce((newest, entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return Math.max(newest, newestSource(path));
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? Math.max(newest, statSync(path).mtimeMs) : newest;
  }, 0);
}

/** Runs `nest build` when dist/ is missing or older than a source file. */
export function ensureBuilt(say: (line: string) => void): void {
  if (existsSync(MAIN) && statSync(MAIN).mtimeMs >= newestSource(join(ROOT, 'src'))) return;
  say('Building dist/ (nest build)...');
  const build = spawnSync('npx', ['nest', 'build'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (build.status !== 0) throw new Error('nest build failed');
  // An incremental build leaves unchanged outputs alone; mark this build as current.
  const now = new Date();
  utimesSync(MAIN, now, now);
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
 * The baseline runs as plain JavaScript, so no compiler sits in its memory or its
 * start-up time. It imports nothing of the service, so a transpile of its one file is enough.
 */
export function compileBaseline(): string {
  const source = readFileSync(join(ROOT, 'bench', 'baseline', 'server.ts'), 'utf8');
  const { outputText } = transpileModule(source, {
    compilerOptions: { module: ModuleKind.CommonJS, target: ScriptTarget.ES2022, esModuleInterop: true },
  });
  const directory = join(RESULTS_DIR, 'baseline');
  mkdirSync(directory, { recursive: true });
  const path = join(directory, 'server.js');
  writeFileSync(path, outputText);
  return path;
}

export { MAIN };
