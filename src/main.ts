// First of all: an older Node is told so in one line, before a native module can crash it.
import './ops/supported-node';
// Then the tracer's instrumentations patch http, mysql2 and ioredis as they load. Unset, no tracer is loaded at all.
const tracing = process.env.OTEL_EXPORTER_OTLP_ENDPOINT ? (require('./ops/tracing') as typeof import('./ops/tracing')).startTracing() : undefined;

import { ConfigError, loadConfig } from './config/app-config';
import { waitForDatabase } from './database/wait-for-database';
import { RouteDeclarationError } from './http/route-declarations';
import { checkListenAddress, describeStartupFailure, type StartupSettings } from './ops/startup-checks';

/** Known once the configuration is loaded: a failed start's line names its HOST, PORT or DATABASE_URL. */
let settings: StartupSettings | undefined;

async function bootstrap(): Promise<void> {
  const config = loadConfig();
  settings = config;
  // The address and the store are checked before the app's modules load, which takes seconds: a start that cannot succeed is said at once.
  await checkListenAddress(config.host, config.port);
  // Said on stderr: the app's logs are held until it is built, and a database still starting is news now.
  await waitForDatabase(config.databaseUrl, (error, attempt, attempts) => {
    const why = describeStartupFailure(error, config) ?? (error as Error).message;
    console.error(`Waiting for the database (try ${attempt} of ${attempts}): ${why}`);
  });
  const { startServer } = require('./server') as typeof import('./server');
  await startServer(config, tracing && (() => tracing.shutdown()));
}

bootstrap().catch((error: unknown) => {
  // A bad configuration, a route declared so that it cannot work, or an environment that refuses the start is one clear line, not a stack trace.
  const environment = settings && describeStartupFailure(error, settings);
  console.error(error instanceof ConfigError || error instanceof RouteDeclarationError ? error.message : environment ? `Cannot start: ${environment}` : error);
  process.exit(1);
});
