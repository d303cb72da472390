// First of all: the tracer's instrumentations patch http, mysql2 and ioredis as they load. Unset, no tracer is loaded at all.
const tracing = process.env.OTEL_EXPORTER_OTLP_ENDPOINT ? (require('./ops/tracing') as typeof import('./ops/tracing')).startTracing() : undefined;

import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module';
import { ApiKeysService, CreatedApiKey } from './auth/application/api-keys.service';
import { configureApp, createFastifyAdapter, NEST_APP_OPTIONS } from './app.setup';
import { ConfigError, loadConfig } from './config/app-config';
import { RouteDeclarationError } from './http/route-declarations';
import { shutDownOnSignals } from './ops/graceful-shutdown';

async function bootstrap(): Promise<void> {
  const config = loadConfig();
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), createFastifyAdapter(config), {
    ...NEST_APP_OPTIONS,
    // A provider that refuses the configuration (the plan table) reaches the catch below as its one line, unlogged.
    abortOnError: false,
    autoFlushLogs: false,
  });
  configureApp(app);
  app.flushLogs();
  await app.init();
  // Made before listening, so the key works by the time the service answers.
  const developmentKey = await app.get(ApiKeysService).provisionDevelopmentKey();
  await app.listen(config.port, config.host);
  shutDownOnSignals(app, config.shutdownTimeoutMs, tracing && (() => tracing.shutdown()));
  new Logger('Main').log(`animal-store listening on http://${config.host}:${config.port}/v1/pets (${config.appEnv})`);
  if (developmentKey) printDevelopmentKey(developmentKey, config.port);
}

/** Printed once, after the start-up logs, so it is the last thing a new user sees (never logged). */
function printDevelopmentKey(created: CreatedApiKey, port: number): void {
  process.stdout.write(
    `\nDevelopment API key (plan pro, id ${created.key.id}). It is shown once; keep it:\n` +
      `  curl -H 'Authorization: Bearer ${created.secret}' http://localhost:${port}/v1/pets\n` +
      `${created.secret}\n\n`,
  );
}

bootstrap().catch((error: unknown) => {
  // A bad configuration or a route declared so that it cannot work is one clear line, not a stack trace.
  console.error(error instanceof ConfigError || error instanceof RouteDeclarationError ? error.message : error);
  process.exit(1);
});
