import 'reflect-metadata';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module';
import { configureApp, createFastifyAdapter, NEST_APP_OPTIONS } from './app.setup';
import { loadConfig } from './config/app-config';
import { OPENAPI_JSON_PATH, serializeOpenApiDocument } from './docs/api-docs';

/**
 * `npm run openapi [file]`: writes the API document (default ./openapi.json) as
 * the service serves it with the default configuration. The app is built from
 * the real modules on a throwaway SQLite store, asked in-process, and never listens.
 */
async function writeOpenApi(target = 'openapi.json'): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'animal-store-openapi-'));
  // The committed document must not depend on what the shell exports.
  process.env = { APP_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: `sqlite:${join(dir, 'store.db')}` };
  const config = loadConfig();
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), createFastifyAdapter(config), {
    ...NEST_APP_OPTIONS,
    logger: false,
  });
  try {
    configureApp(app);
    await app.init();
    const response = await app.getHttpAdapter().getInstance().inject({ method: 'GET', url: `/${OPENAPI_JSON_PATH}` });
    if (response.statusCode !== 200) throw new Error(`GET /${OPENAPI_JSON_PATH} answered ${response.statusCode}`);
    writeFileSync(resolve(target), serializeOpenApiDocument(JSON.parse(response.body)));
    console.log(`Wrote ${resolve(target)}`);
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

writeOpenApi(process.argv[2]).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
