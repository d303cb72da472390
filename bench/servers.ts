import { ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import type { LoadFigures } from './load';

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

/** Clock ticks per second of /proc/<pid>/stat's times: USER_HZ, 100 on Linux. */
const CLOCK_TICKS_PER_SECOND = 100;

/** User plus system CPU time the process has used, in milliseconds (undefined where /proc is not available). */
export function readCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces: utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** Jiffies of the whole machine from /proc/stat: all of them, and those stolen by the hypervisor. */
export interface MachineTicks {
  readonly total: number;
  readonly steal: number;
}

export function readMachineTicks(): MachineTicks | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
    // cpu user nice system idle iowait irq softirq steal guest guest_nice (guest time is already in user).
    const fields = line.trim().split(/\s+/).slice(1, 9).map(Number);
    if (fields.length < 8 || fields.some((n) => !Number.isFinite(n))) return undefined;
    return { total: fields.reduce((sum, n) => sum + n, 0), steal: fields[7] };
  } catch {
    return undefined;
  }
}

/** The share of the machine's CPU time that the hypervisor gave to others between two readings. */
export function stealShare(before: MachineTicks | undefined, after: MachineTicks | undefined): number | undefined {
  if (!before || !after || after.total <= before.total) return undefined;
  return (after.steal - before.steal) / (after.total - before.total);
}

export interface ObservedLoad {
  readonly result: LoadFigures;
  readonly peakRssMb?: number;
  /**
   * The server's CPU time per answered request, in microseconds: what a request
   * costs the server, much steadier than req/s on a machine shared with the load
   * generator and other work.
   */
  readonly cpuUsPerRequest?: number;
  /**
   * The share of the machine's CPU time stolen by the hypervisor during the
   * run: on a shared virtual machine, a high value marks a round whose figures
   * say more about the neighbours than about the server.
   */
  readonly stealShare?: number;
}

/**
 * Watches one server over one or more stretches of load: its peak RSS, sampled
 * while a stretch runs, and its CPU time and the machine's steal, summed over
 * the stretches (the gaps between them, while another server is loaded, not counted).
 */
export class ServerWatch {
  private peakRssMb: number | undefined;
  private cpuMs: number | undefined = 0;
  private ticks: MachineTicks | undefined = { total: 0, steal: 0 };

  constructor(private readonly server: RunningServer) {
    this.peakRssMb = server.rssMb();
  }

  async during<T>(work: () => Promise<T>): Promise<T> {
    const sample = () => {
      const now = this.server.rssMb();
      if (now !== undefined && (this.peakRssMb === undefined || now > this.peakRssMb)) this.peakRssMb = now;
    };
    const timer = setInterval(sample, 200);
    const cpuBefore = readCpuMs(this.server.pid);
    const machineBefore = readMachineTicks();
    try {
      return await work();
    } finally {
      clearInterval(timer);
      sample();
      const cpuAfter = readCpuMs(this.server.pid);
      const machineAfter = readMachineTicks();
      this.cpuMs = this.cpuMs === undefined || cpuBefore === undefined || cpuAfter === undefined ? undefined : this.cpuMs + cpuAfter - cpuBefore;
      this.ticks =
        this.ticks === undefined || machineBefore === undefined || machineAfter === undefined
          ? undefined
          : { total: this.ticks.total + machineAfter.total - machineBefore.total, steal: this.ticks.steal + machineAfter.steal - machineBefore.steal };
    }
  }

  /** What was watched, for `requests` answered over all the stretches. */
  observed(requests: number): Omit<ObservedLoad, 'result'> {
    return {
      peakRssMb: this.peakRssMb,
      cpuUsPerRequest: this.cpuMs === undefined || requests === 0 ? undefined : (this.cpuMs * 1000) / requests,
      stealShare: stealShare({ total: 0, steal: 0 }, this.ticks),
    };
  }
}

/** Watches a server while `work` runs; resolves to the work's figures with what was watched. */
export async function observeServer(server: RunningServer, work: () => Promise<LoadFigures>): Promise<ObservedLoad> {
  const watch = new ServerWatch(server);
  const result = await watch.during(work);
  return { result, ...watch.observed(result.total) };
}
