import { ChildProcess, spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { request } from 'node:http';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { createDataSourceOptions } from '../src/database/database-options';
import { shutDown } from '../src/ops/graceful-shutdown';
import { describeOnStore } from './support/describe-store';
import { createTestApp } from './support/test-app';
import { createTestDatabase, TestDatabase } from './support/test-database';
import { freePort } from './support/ports';

const ROOT = join(__dirname, '..');
/** A key printed at start (a development start on a store without keys prints one). */
const PRINTED_KEY = /\bask_(?:test|live)_[A-Za-z0-9_-]{43}[A-Za-z0-9]{6}\b/;

interface Outcome {
  readonly name: string;
  readonly status?: number;
  readonly body?: string;
  /** Set when no response came at all: ECONNREFUSED, ECONNRESET, ... */
  readonly error?: string;
}


/**
 * POST /v1/pets on a connection of its own. With `holdUntil`, half the body is
 * sent at once and the rest only when it resolves: the request is in flight
 * on the server the whole time.
 */
function createPet(port: number, name: string, headers: Record<string, string>, holdUntil?: Promise<void>): Promise<Outcome> {
  const body = JSON.stringify({ name, categoryId: 1 });
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/v1/pets',
        agent: false,
        headers: { ...headers, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ name, status: res.statusCode, body: text }));
        res.on('error', (error: NodeJS.ErrnoException) => resolve({ name, status: res.statusCode, error: error.code ?? error.message }));
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ name, error: error.code ?? error.message }));
    if (!holdUntil) return void req.end(body);
    const half = Math.floor(body.length / 2);
    req.write(body.slice(0, half));
    void holdUntil.then(() => req.end(body.slice(half)));
  });
}

async function waitUntilReady(port: number, server: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 45_000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`The server exited during start:\n${output()}`);
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (response) => response.status === 200,
      () => false,
    );
    if (ready) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`The server did not become ready:\n${output()}`);
}

async function storedNames(database: TestDatabase): Promise<Set<string>> {
  const dataSource = await new DataSource(createDataSourceOptions(database.url)).initialize();
  try {
    const rows: Array<{ name: string }> = await dataSource.query('SELECT name FROM pets');
    return new Set(rows.map((row) => row.name));
  } finally {
    await dataSource.destroy();
  }
}

describeOnStore('graceful shutdown of the running server', () => {
  let database: TestDatabase;
  let server: ChildProcess | undefined;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    if (server && server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
    await database?.drop();
  });

  it('on SIGTERM finishes the requests in flight, refuses new ones, keeps every acknowledged create and exits 0', async () => {
    const port = await freePort();
    // Through ts-node, so the spec always runs the current sources without a build step.
    server = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', 'src/main.ts'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        TS_NODE_PROJECT: 'tsconfig.json',
        APP_ENV: 'development',
        HOST: '127.0.0.1',
        PORT: String(port),
        DATABASE_URL: database.url,
        LOG_LEVEL: 'info',
        SHUTDOWN_TIMEOUT_MS: '10000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    server.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    server.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = once(server, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    await waitUntilReady(port, server, () => output);

    const key = PRINTED_KEY.exec(output)?.[0];
    const headers: Record<string, string> = key ? { Authorization: `Bearer ${key}` } : {};

    // Requests the server is in the middle of reading when the signal comes.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const inFlight = Array.from({ length: 3 }, (_, i) => createPet(port, `in-flight-${i}`, headers, released));

    // A steady, bounded load on fresh connections until the server stops answering.
    let acknowledged = 0;
    let sent = 0;
    const load: Outcome[] = [];
    const worker = async (w: number) => {
      while (sent < 400) {
        const outcome = await createPet(port, `load-${w}-${sent++}`, headers);
        load.push(outcome);
        if (outcome.status !== 201) return;
        acknowledged++;
      }
    };
    const workers = Array.from({ length: 6 }, (_, w) => worker(w));

    while (acknowledged < 20 && load.every((outcome) => outcome.status === 201)) await new Promise((resolve) => setTimeout(resolve, 5));
    server.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    release();

    const [inFlightOutcomes] = await Promise.all([Promise.all(inFlight), Promise.all(workers)]);
    const [code, signal] = await exited;

    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(output).toContain('Shutdown complete');
    // Accepted before the signal: finished, not cut off.
    expect(inFlightOutcomes.map((outcome) => outcome.status)).toEqual([201, 201, 201]);

    // Any other request was refused before the server took it on: a 503 with the Error body, or no connection.
    const refused = (outcome: Outcome) =>
      outcome.error === 'ECONNREFUSED' || (outcome.status === 503 && /^\{"code":"service_unavailable",/.test(outcome.body ?? ''));
    expect(load.filter((outcome) => outcome.status !== 201 && !refused(outcome))).toEqual([]);
    expect(load.some((outcome) => outcome.status !== 201)).toBe(true);

    // Every acknowledged create is stored; nothing the client saw fail was stored behind its back.
    const stored = await storedNames(database);
    const created = [...inFlightOutcomes, ...load].filter((outcome) => outcome.status === 201).map((outcome) => outcome.name);
    expect([...stored].sort()).toEqual(created.sort());
  });
});

describeOnStore('shutdown bound', () => {
  it('cuts a request still open after the timeout, then closes the app', async () => {
    const testApp = await createTestApp();
    try {
      await testApp.app.listen(0, '127.0.0.1');
      const { port } = testApp.app.getHttpServer().address() as AddressInfo;
      // Half a body that never ends: the request stays in flight until it is cut.
      const stalled = createPet(port, 'never-finished', {}, new Promise<void>(() => undefined));
      await new Promise((resolve) => setTimeout(resolve, 100));

      await shutDown(testApp.app, 200);

      await expect(stalled).resolves.toMatchObject({ name: 'never-finished', error: expect.any(String) });
      await expect(createPet(port, 'after-close', {})).resolves.toMatchObject({ error: 'ECONNREFUSED' });
    } finally {
      await testApp.database.drop();
    }
  });
});
