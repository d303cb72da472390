import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module';
import { ApiKeysService, CreatedApiKey } from './auth/application/api-keys.service';
import { configureApp, createFastifyAdapter, NEST_APP_OPTIONS } from './app.setup';
import type { AppConfig } from './config/app-config';
import { shutDownOnSignals } from './ops/graceful-shutdown';

/** Builds the service on `config`, migrates its store and listens; main.ts calls it once the start's checks have passed. */
export async function startServer(config: AppConfig, shutDownTracing?: () => Promise<void>): Promise<void> {
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), createFastifyAdapter(config), {
    ...NEST_APP_OPTIONS,
    // A provider that refuses the configuration (the plan table) reaches main.ts's catch as its one line, unlogged.
    abortOnError: false,
    autoFlushLogs: false,
  });
  configureApp(app);
  app.flushLogs();
  await app.init();
  // Made before listening, so the key works by the time the service answers.
  const developmentKey = await app.get(ApiKeysService).provisionDevelopmentKey();
  await app.listen(config.port, config.host);
  shutDownOnSignals(app, config.shutdownTimeoutMs, shutDownTracing);
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
