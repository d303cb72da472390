import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import type { SentSpan, TracedAppMessage } from './support/traced-app';
import { isRedisAvailable } from './support/test-redis';

const ROOT = join(__dirname, '..');
const SERVER = 1;
const CLIENT = 2;
const LIST_SQL = 'SELECT id, name, category_id AS categoryId, status FROM pets WHERE id > ? ORDER BY id LIMIT ?';

(process.env.MYSQL_AVAILABLE === '1' && isRedisAvailable() ? describe : describe.skip)('traces through OpenTelemetry [mysql + redis]', () => {
  let child: ChildProcess;
  let output = '';
  let base: string;
  let keyId: number;
  let secret: string;

  const next = <T extends TracedAppMessage>(has: (message: TracedAppMessage) => message is T): Promise<T> =>
    new Promise((resolve, reject) => {
      const onMessage = (message: TracedAppMessage) => {
        if (!has(message)) return;
        child.off('message', onMessage);
        resolve(message);
      };
      child.on('message', onMessage);
      child.once('exit', (code) => reject(new Error(`The traced service exited with ${code}:\n${output}`)));
    });

  /** The finished spans of one trace, once its server span has ended (after the response reached us). */
  const traceOf = async (traceId: string): Promise<SentSpan[]> => {
    for (let tries = 0; tries < 50; tries++) {
      const asked = next((message): message is { spans: SentSpan[] } => 'spans' in message);
      child.send('spans');
      const spans = (await asked).spans.filter((span) => span.traceId === traceId);
      if (spans.some((span) => span.kind === SERVER)) return spans;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`No server span in trace ${traceId}`);
  };

  const serverSpanOf = async (requestId: string): Promise<SentSpan> => {
    for (let tries = 0; tries < 50; tries++) {
      const asked = next((message): message is { spans: SentSpan[] } => 'spans' in message);
      child.send('spans');
      const span = (await asked).spans.find((candidate) => candidate.kind === SERVER && candidate.attributes['animal_store.request_id'] === requestId);
      if (span) return span;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`No server span for request ${requestId}`);
  };

  beforeAll(async () => {
    child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', 'test/support/traced-app.ts'], {
      cwd: ROOT,
      env: { ...process.env, OTEL_TRACES_SAMPLER: 'always_on' },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const { ready } = await next((message): message is { ready: { port: number; keyId: number; secret: string } } => 'ready' in message);
    base = `http://127.0.0.1:${ready.port}`;
    keyId = ready.keyId;
    secret = ready.secret;
  }, 60_000);

  afterAll(async () => {
    if (!child || child.exitCode !== null) return;
    const exited = once(child, 'exit');
    child.send('stop');
    await exited;
  });

  it('makes one list request one trace: a server span named by its route, with the request id and key id, and its SQL and Redis spans as children', async () => {
    const response = await fetch(`${base}/v1/pets?limit=5`, { headers: { authorization: `Bearer ${secret}`, 'x-request-id': 'traced-list-1' } });
    expect(response.status).toBe(200);
    const server = await serverSpanOf('traced-list-1');
    expect(server).toMatchObject({
      name: 'GET /v1/pets',
      attributes: expect.objectContaining({
        'http.route': '/v1/pets',
        'http.response.status_code': 200,
        'animal_store.request_id': 'traced-list-1',
        'animal_store.api_key_id': keyId,
      }),
    });
    // A root: no traceparent came.
    expect(server.parentSpanId).toBeUndefined();
    const trace = await traceOf(server.traceId);
    const children = trace.filter((span) => span.parentSpanId === server.spanId);
    const sql = children.filter((span) => span.kind === CLIENT && (span.attributes['db.system.name'] ?? span.attributes['db.system']) === 'mysql');
    expect(sql.map((span) => span.attributes['db.query.text'] ?? span.attributes['db.statement'])).toContain(LIST_SQL);
    const redis = children.filter((span) => span.kind === CLIENT && (span.attributes['db.system.name'] ?? span.attributes['db.system']) === 'redis');
    expect(redis.length).toBeGreaterThanOrEqual(1);
    // Every span of the trace hangs under the server span, and the key itself is nowhere.
    expect(trace.filter((span) => span.parentSpanId === undefined).map((span) => span.spanId)).toEqual([server.spanId]);
    expect(JSON.stringify(trace)).not.toContain(secret);
  });

  it('continues the trace of an incoming W3C traceparent', async () => {
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const parentId = 'b7ad6b7169203331';
    const response = await fetch(`${base}/v1/pets/12345`, {
      headers: { authorization: `Bearer ${secret}`, 'x-request-id': 'traced-get-1', traceparent: `00-${traceId}-${parentId}-01` },
    });
    expect(response.status).toBe(404);
    const server = await serverSpanOf('traced-get-1');
    expect(server).toMatchObject({ name: 'GET /v1/pets/:petId', traceId, parentSpanId: parentId });
    expect(server.attributes).toMatchObject({ 'http.route': '/v1/pets/:petId', 'http.response.status_code': 404, 'animal_store.api_key_id': keyId });
  });
});
