import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { AppModule } from '../../src/app.module';
import { configureApp, createFastifyAdapter, NEST_APP_OPTIONS } from '../../src/app.setup';
import { AppConfig, loadConfig } from '../../src/config/app-config';
import { ApiClient } from './api-client';
import { createTestDatabase, currentStore, TestDatabase, TestStore } from './test-database';

export interface TestApp {
  readonly app: NestFastifyApplication;
  readonly config: AppConfig;
  readonly database: TestDatabase;
  /** A client with a valid API key. */
  readonly client: ApiClient;
  close(): Promise<void>;
}

export interface TestAppOptions {
  store?: TestStore;
  /** Environment variables on top of the test defaults. */
  env?: Record<string, string>;
  /** Reuse a database (several instances of the service on one store). */
  database?: TestDatabase;
  /** Providers to replace by token, e.g. the log destination of a spec that reads the logs. */
  overrides?: ReadonlyArray<{ provide: unknown; useValue: unknown }>;
}

/** The real AppModule on Fastify, configured exactly as main.ts does, on a fresh database. */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = options.database ?? (await createTestDatabase(options.store ?? currentStore()));
  const config = loadConfig({ APP_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: database.url, ...options.env });
  const builder = Test.createTestingModule({ imports: [AppModule] }).overrideProvider(AppConfig).useValue(config);
  for (const { provide, useValue } of options.overrides ?? []) builder.overrideProvider(provide).useValue(useValue);
  const moduleRef = await builder.compile();
  const app = moduleRef.createNestApplication<NestFastifyApplication>(createFastifyAdapter(config), {
    ...NEST_APP_OPTIONS,
    logger: false,
  });
  configureApp(app);
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return {
    app,
    config,
    database,
    client: new ApiClient(app),
    close: async () => {
      await app.close();
      if (!options.database) await database.drop();
    },
  };
}
