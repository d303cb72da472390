/**
 * The service with tracing on, in a process of its own: OpenTelemetry's
 * instrumentations patch modules as Node loads them, which jest's module
 * system bypasses. Spans go to an in-memory exporter; the parent spec reads
 * them over the IPC channel (see tracing.int-spec.ts).
 */
import { InMemorySpanExporter, ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { startTracing } from '../../src/ops/tracing';

const exporter = new InMemorySpanExporter();
startTracing([new SimpleSpanProcessor({ exporter })]);

/** A span as the parent spec reads it. */
export interface SentSpan {
  readonly name: string;
  readonly kind: number;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly attributes: Record<string, unknown>;
}

export type TracedAppMessage =
  | { readonly ready: { readonly port: number; readonly keyId: number; readonly secret: string } }
  | { readonly spans: SentSpan[] };

const sent = (span: ReadableSpan): SentSpan => ({
  name: span.name,
  kind: span.kind,
  traceId: span.spanContext().traceId,
  spanId: span.spanContext().spanId,
  parentSpanId: span.parentSpanContext?.spanId,
  attributes: { ...span.attributes },
});

async function main(): Promise<void> {
  // Only now, so that http, mysql2 and ioredis load patched.
  const { createTestApp } = require('./test-app') as typeof import('./test-app');
  const testApp = await createTestApp({
    store: 'mysql',
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' },
  });
  const { id: keyId, secret } = await testApp.createKey({ plan: 'pro', name: 'traced' });
  await testApp.app.listen(0, '127.0.0.1');
  const { port } = testApp.app.getHttpServer().address() as { port: number };
  const send = (message: TracedAppMessage) => process.send?.(message);
  process.on('message', (message: 'spans' | 'stop') => {
    if (message === 'spans') send({ spans: exporter.getFinishedSpans().map(sent) });
    else void testApp.close().then(() => process.exit(0));
  });
  send({ ready: { port, keyId, secret } });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
