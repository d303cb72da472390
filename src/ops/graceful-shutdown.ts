import { Logger } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { RequestDrain } from './request-drain';

/** Time left for the database and other resources to close once requests have drained. */
const RESOURCE_CLOSE_MS = 5_000;

/**
 * Requests first, resources after (Nest's own app.close() would close the
 * database before the server):
 * 1. new requests are answered 503 with `Connection: close` while the ones
 *    taken on finish, so a caller never loses a request without knowing;
 * 2. the server stops listening and closes its idle connections;
 * 3. whatever is still open after `timeoutMs` is cut;
 * 4. the app closes: database pools, Redis, every Nest shutdown hook.
 */
export async function shutDown(app: NestFastifyApplication, timeoutMs: number, logger = new Logger('Shutdown')): Promise<void> {
  const fastify = app.getHttpAdapter().getInstance();
  const cutOff = setTimeout(() => {
    logger.warn(`Requests still open after ${timeoutMs} ms: closing their connections`);
    fastify.server.closeAllConnections();
  }, timeoutMs);
  try {
    await app.get(RequestDrain).drain(timeoutMs);
    await fastify.close();
  } finally {
    clearTimeout(cutOff);
  }
  await app.close();
}

/**
 * On SIGTERM or SIGINT: shut down as above and exit 0; exit 1 if that fails or
 * hangs. `afterClose` runs last (the tracer flushes the spans of the last requests).
 */
export function shutDownOnSignals(app: NestFastifyApplication, timeoutMs: number, afterClose?: () => Promise<void>): void {
  const logger = new Logger('Shutdown');
  let started = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (started) return;
    started = true;
    logger.log(`${signal} received: finishing requests in flight, then closing`);
    setTimeout(() => {
      logger.error('Shutdown did not finish in time');
      process.exit(1);
    }, timeoutMs + RESOURCE_CLOSE_MS).unref();
    shutDown(app, timeoutMs, logger)
      .then(() => afterClose?.())
      .then(
        () => {
          logger.log('Shutdown complete');
          process.exit(0);
        },
        (error: unknown) => {
          logger.error(`Shutdown failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
