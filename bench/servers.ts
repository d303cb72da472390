import { ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';

export interface ServerSpec {
  readonly label: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  /** Answers 2xx once the server can take load. */
  readonly readyUrl: string;
  readonly readyHeaders: Record<string, string>;
  /** Both output streams go here, so server logs never mix into the bench's own. */
  readonly logFile: string;
  /** SIGTERM unless the server must exit another way (a profiled one writes its profile on a clean exit). */
  readonly stopSignal?: NodeJS.Signals;
}

export interface RunningServer {
  readonly pid: number;
  /** From spawn to the first 2xx of the ready URL. */
  readonly startupMs: number;
  /** Resident set size now, in MB (undefined where /proc is not available). */
  rssMb(): number | undefined;
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 60_000;

function tail(file: string, lines = 15): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));
}

export async function startServer(spec: ServerSpec): Promise<RunningServer> {
  const log = openSync(spec.logFile, 'a');
  const started = performance.now();
  const child = spawn(spec.command, spec.args, { env: spec.env, stdio: ['ignore', log, log] });
  closeSync(log);
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${spec.label} did not start`);
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(spec.stopSignal ?? 'SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited(child);
    clearTimeout(killer);
  };
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${spec.label} exited with code ${child.exitCode} before it was ready:\n${tail(spec.logFile)}`);
    if (performance.now() - started > READY_TIMEOUT_MS) {
      await stop();
      throw new Error(`${spec.label} was not ready after ${READY_TIMEOUT_MS / 1000}s:\n${tail(spec.logFile)}`);
    }
    const status = await fetch(spec.readyUrl, { headers: spec.readyHeaders }).then(
      async (response) => (await response.arrayBuffer(), response.status),
      () => undefined, // not listening yet
    );
    if (status !== undefined && status >= 200 && status < 300) break;
    if (status !== undefined && status !== 503) {
      await stop();
      throw new Error(`${spec.label} answered ${status} to ${spec.readyUrl}:\n${tail(spec.logFile)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const startupMs = performance.now() - started;
  return { pid, startupMs, rssMb: () => readRssMb(pid), stop };
}

function readRssMb(pid: number): number | undefined {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Samples a server's RSS while `work` runs and resolves to the work's result and the peak seen. */
export async function withPeakRss<T>(server: RunningServer, work: () => Promise<T>): Promise<{ result: T; peakRssMb?: number }> {
  let peak = server.rssMb();
  const timer = setInterval(() => {
    const now = server.rssMb();
    if (now !== undefined && (peak === undefined || now > peak)) peak = now;
  }, 200);
  try {
    const result = await work();
    return { result, peakRssMb: peak };
  } finally {
    clearInterval(timer);
  }
}
