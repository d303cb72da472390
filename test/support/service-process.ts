import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from './ports';

const ROOT = join(__dirname, '..', '..');

export interface ServiceProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** Everything the process printed, for failure messages. */
  output(): string;
  stop(): Promise<number | null>;
}

/**
 * Starts the real service (src/main.ts, as `npm start` runs it but without a
 * build step) in its own process and waits until it answers.
 */
export async function startServiceProcess(env: Record<string, string>, timeoutMs = 30_000): Promise<ServiceProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', 'src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, APP_ENV: 'test', LOG_LEVEL: 'warn', HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let printed = '';
  child.stdout?.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const service: ServiceProcess = {
    url,
    child,
    output: () => printed,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`The service exited with ${child.exitCode}:\n${printed}`);
    try {
      await fetch(`${url}/v1/pets`);
      return service;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  await service.stop();
  throw new Error(`The service did not answer within ${timeoutMs} ms:\n${printed}`);
}
