import { VersioningType } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from 'nestjs-pino';
import { setupApiDocs } from './docs/api-docs';
import { configureRequestPipeline } from './request-pipeline';

export { createFastifyAdapter } from './request-pipeline';

/** Options for NestFactory.create: the JSON parser is the request pipeline's (see registerJsonBodyParser). */
export const NEST_APP_OPTIONS = { bodyParser: false, bufferLogs: true } as const;

/**
 * Everything the running service needs beyond its modules. main.ts and the
 * end-to-end specs both call it, so the tests exercise exactly what ships.
 */
export function configureApp(app: NestFastifyApplication): NestFastifyApplication {
  app.useLogger(app.get(Logger));
  // First: the hooks reach only the plugins registered after them, the API docs' static files included.
  configureRequestPipeline(app);
  app.enableVersioning({ type: VersioningType.URI });
  setupApiDocs(app);
  return app;
}
