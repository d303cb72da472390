import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module';
import { configureApp, createFastifyAdapter, NEST_APP_OPTIONS } from './app.setup';
import { ConfigError, loadConfig } from './config/app-config';
import { shutDownOnSignals } from './ops/graceful-shutdown';

async function bootstrap(): Promise<void> {
  const config = loadConfig();
  const app = await NestFactory.create<NestFastifyApplication>(AppModule, createFastifyAdapter(config), NEST_APP_OPTIONS);
  configureApp(app);
  await app.listen(config.port, config.host);
  shutDownOnSignals(app, config.shutdownTimeoutMs);
  new Logger('Main').log(`animal-store listening on http://${config.host}:${config.port}/v1/pets (${config.appEnv})`);
}

bootstrap().catch((error: unknown) => {
  // A bad configuration is one clear line, not a stack trace.
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
