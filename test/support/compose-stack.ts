import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { isCi } from './local-services';

const ROOT = join(__dirname, '..', '..');

/** Where nginx publishes the stack (docker-compose.yml). */
export const STACK_URL = 'http://127.0.0.1:3000';

const succeeds = (command: string, args: string[]): boolean => spawnSync(command, args, { stdio: 'ignore', timeout: 30_000 }).status === 0;

let chosenCompose: [string, ...string[]] | undefined;

/** The compose files of each stack, as `scripts/compose.sh up` and `up --galera` use them. */
const STACK_FILES = {
  default: ['docker-compose.yml'],
  galera: ['docker-compose.yml', 'docker-compose.galera.yml'],
} as const;
export type Stack = keyof typeof STACK_FILES;

let stack: Stack = 'default';

/** The stack that the helpers below start and drive; a spec file chooses it once (jest loads this module anew for each file). */
export function useStack(chosen: Stack): void {
  stack = chosen;
}

/** `docker compose` where the plugin exists, else docker-compose 1.x, as scripts/compose.sh chooses. */
export function composeCommand(): [string, ...string[]] {
  chosenCompose ??= succeeds('docker', ['compose', 'version']) ? ['docker', 'compose'] : ['docker-compose'];
  return chosenCompose;
}

/**
 * True when this machine can run the stack: a Docker client, an engine or
 * `dockerd` to start one, and Compose. Under CI=true a missing piece fails the
 * run; elsewhere the spec is skipped with a loud warning.
 */
export function canRunStack(): boolean {
  const missing = [
    succeeds('docker', ['--version']) ? undefined : 'the docker client',
    succeeds('docker', ['info']) || succeeds('dockerd', ['--version']) ? undefined : 'a Docker engine (dockerd)',
    succeeds('docker', ['compose', 'version']) || succeeds('docker-compose', ['version']) ? undefined : 'Docker Compose',
  ].filter((piece): piece is string => piece !== undefined);
  if (missing.length === 0) return true;
  const message = `${missing.join(', ')} not found on this machine (apt-get install -y docker.io docker-compose)`;
  if (isCi()) throw new Error(`${message}: CI needs it, failing the run.`);
  process.stderr.write(`\n!!!!!!!! ${message}: the container stack spec is SKIPPED. !!!!!!!!\n\n`);
  return false;
}

export interface CommandResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command in the repository without blocking the event loop, so requests in flight go on meanwhile. */
export function run(command: string, args: string[], timeoutMs = 120_000): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** `npm run compose:up` (with `-- --galera` for that stack) or `compose:down`: the script itself, so the spec runs what an operator runs. */
export async function composeScript(action: 'up' | 'down', timeoutMs: number): Promise<void> {
  const args = ['scripts/compose.sh', action, ...(action === 'up' && stack === 'galera' ? ['--galera'] : [])];
  const result = await run('bash', args, timeoutMs);
  if (result.status !== 0) {
    const tail = `${result.stdout}\n${result.stderr}`.trim().split('\n').slice(-60).join('\n');
    throw new Error(`${args.join(' ')} exited with ${result.status}:\n${tail}`);
  }
}

/** Compose with the files of the stack in use. */
export function compose(args: string[], timeoutMs?: number): Promise<CommandResult> {
  const [command, ...prefix] = composeCommand();
  return run(command, [...prefix, ...STACK_FILES[stack].flatMap((file) => ['-f', file]), ...args], timeoutMs);
}

/** The compose project of the running stack, from its proxy container's label. */
export async function stackProject(): Promise<string> {
  const id = (await compose(['ps', '-q', 'proxy'])).stdout.trim();
  return (await run('docker', ['inspect', '--format', '{{ index .Config.Labels "com.docker.compose.project" }}', id])).stdout.trim();
}

/** The containers, networks and volumes a compose project still has, by kind, with the status of each listing. */
export async function projectLeftovers(project: string): Promise<Array<{ kind: string; status: number | null; left: string }>> {
  const filter = `label=com.docker.compose.project=${project}`;
  const listings = [
    ['ps', '-a'],
    ['network', 'ls'],
    ['volume', 'ls'],
  ];
  return Promise.all(
    listings.map(async (listing) => {
      const left = await run('docker', [...listing, '--quiet', '--filter', filter]);
      return { kind: listing[0], status: left.status, left: left.stdout.trim() };
    }),
  );
}

/** A command inside a running service's container (`compose exec -T`); throws unless it exits 0. */
export async function exec(service: string, command: string[]): Promise<string> {
  const result = await compose(['exec', '-T', service, ...command]);
  if (result.status !== 0) throw new Error(`${command.join(' ')} in ${service} exited with ${result.status}: ${result.stderr}${result.stdout}`);
  return result.stdout;
}

/** The replicas' operators' port (OPS_PORT in docker-compose.yml), which nginx does not publish. */
export const OPS_PORT = 9100;

/** GET `path` on a replica's operators' port, from inside its container. */
export async function opsHttp<T = unknown>(service: string, path: string): Promise<{ status: number; body: T }> {
  const script = `fetch('http://127.0.0.1:${OPS_PORT}${path}').then(async (r) => process.stdout.write(JSON.stringify({ status: r.status, text: await r.text() })))`;
  const { status, text } = JSON.parse(await exec(service, ['node', '-e', script])) as { status: number; text: string };
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: the text as it is.
  }
  return { status, body: body as T };
}

/** The last line the key command printed: the new key. */
export async function createKey(args: string[]): Promise<string> {
  const output = await exec('app1', ['node', 'dist/keys.js', 'create', ...args]);
  const key = output.trim().split('\n').pop() ?? '';
  if (!/^ask_live_[A-Za-z0-9_-]+$/.test(key)) throw new Error(`The key command printed no key:\n${output}`);
  return key;
}

/** The value of each sample of `name` in an app replica's /metrics, by its label text. */
export async function metric(service: string, name: string): Promise<Map<string, number>> {
  const text = await exec(service, ['node', '-e', `fetch('http://127.0.0.1:${OPS_PORT}/metrics').then((r) => r.text()).then((t) => process.stdout.write(t))`]);
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = new RegExp(`^${name}(\\{[^}]*\\})? (\\S+)$`).exec(line);
    if (match) samples.set(match[1] ?? '', Number(match[2]));
  }
  return samples;
}

/** The app replica (app1 or app2) whose log has a request with this X-Request-Id. */
export async function servedBy(requestIds: string[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const service of ['app1', 'app2']) {
    const { stdout } = await compose(['logs', '--no-color', service]);
    for (const id of requestIds) if (stdout.includes(`"requestId":"${id}"`)) found.set(id, service);
  }
  return found;
}

export interface HttpAnswer<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

/** A request to the stack through nginx; the body is parsed as JSON when it is. */
export async function http<T = unknown>(path: string, init: { method?: string; key?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<HttpAnswer<T>> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${STACK_URL}${path}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON (an nginx error page): kept as text for the failure message.
  }
  return { status: response.status, headers: response.headers, body: body as T };
}

export async function waitFor<T>(what: string, attempt: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await attempt();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`Timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}
