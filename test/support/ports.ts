import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const LOWEST = 10_000;

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** The lowest port the kernel hands to `listen(0)` and to outgoing connections. */
function ephemeralRangeStart(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32_768;
  } catch {
    return 32_768;
  }
}

export interface FreePortOptions {
  /** Offsets from the port that must be free too, such as a cluster node's bus port (+10000). */
  readonly alsoFree?: readonly number[];
  /** Ports already handed to servers that may not be listening yet. */
  readonly taken?: ReadonlySet<number>;
}

/**
 * A free loopback port for a server that another process binds. It lies below the ephemeral range,
 * where no outgoing connection of the other specs can take it between this check and that bind.
 */
export async function freePort(options: FreePortOptions = {}): Promise<number> {
  const offsets = [0, ...(options.alsoFree ?? [])];
  const span = Math.max(ephemeralRangeStart() - LOWEST - Math.max(...offsets), 2_000);
  for (let tries = 0; tries < 200; tries++) {
    const port = LOWEST + Math.floor(Math.random() * span);
    const ports = offsets.map((offset) => port + offset);
    if (ports.some((each) => options.taken?.has(each))) continue;
    if (await everyFree(ports)) return port;
  }
  throw new Error('No free loopback port below the ephemeral range');
}

async function everyFree(ports: readonly number[]): Promise<boolean> {
  for (const port of ports) if (!(await isFree(port))) return false;
  return true;
}

/** A loopback port that a server of the spec holds until `close`, so that another process finds it in use. */
export async function occupiedPort(): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
