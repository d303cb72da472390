import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { MySQL2Instrumentation } from '@opentelemetry/instrumentation-mysql2';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { SpanProcessor } from '@opentelemetry/sdk-trace';

/** Probes and scrapes arrive every few seconds and say nothing about a request's time: they are not traced. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/** What main.ts keeps of the tracer, to flush it at shutdown. */
export interface Tracing {
  shutdown(): Promise<void>;
}

let started: Tracing | undefined;

/**
 * Starts OpenTelemetry's Node SDK: a server span per request (continuing an
 * incoming W3C `traceparent`), a child per SQL statement on MySQL and per
 * Redis call. The instrumentations patch `http`, `mysql2` and `ioredis` as
 * they load, so this runs before anything else is required: main.ts loads this
 * file first, and only when OTEL_EXPORTER_OTLP_ENDPOINT is set. The exporter,
 * headers, sampler and resource come from the standard OTEL_* variables;
 * metrics stay on /metrics and logs on stdout, so the SDK exports traces only.
 * Specs pass span processors of their own (an in-memory exporter).
 */
export function startTracing(spanProcessors?: SpanProcessor[]): Tracing {
  if (started) return started;
  const sdk = new NodeSDK({
    ...(process.env.OTEL_SERVICE_NAME ? {} : { serviceName: 'animal-store' }),
    ...(spanProcessors ? { spanProcessors } : {}),
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.has(request.url ?? '') }),
      // Statements without their values: a bound value may be a key's hash or a client's data.
      new MySQL2Instrumentation({ maskStatement: true }),
      new IORedisInstrumentation(),
    ],
  });
  sdk.start();
  started = { shutdown: () => sdk.shutdown() };
  return started;
}
