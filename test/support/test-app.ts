import type { Type } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { AppModule } from '../../src/app.module';
import { ApiKeysService, CreateApiKeyInput } from '../../src/auth/application/api-keys.service';
import { configureApp, createFastifyAdapter, NEST_APP_OPTIONS } from '../../src/app.setup';
import { AppConfig, loadConfig } from '../../src/config/app-config';
import { ApiClient } from './api-client';
import { createTestDatabase, currentStore, TestDatabase, TestStore } from './test-database';

export interface TestApp {
  readonly app: NestFastifyApplication;
  readonly config: AppConfig;
  readonly database: TestDatabase;
  /** A valid key with limits far above what any spec sends, and a client that sends it. */
  readonly apiKey: string;
  readonly client: ApiClient;
  /** A client that sends no Authorization header. */
  readonly anonymous: ApiClient;
  /** Creates a key through the service's own key life cycle; returns its id and secret. */
  createKey(input: CreateApiKeyInput): Promise<{ id: number; accountId: number; secret: string }>;
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
  /** Controllers added beside AppModule's, as a module the team adds later would bring them. */
  controllers?: Type[];
  /** Modules imported beside AppModule, as a feature module the team adds later is imported into it. */
  modules?: Type[];
}

/** The real AppModule on Fastify, configured exactly as main.ts does, on a fresh database. */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = options.database ?? (await createTestDatabase(options.store ?? currentStore()));
  // No load shedding unless a spec asks: a machine busy with other specs can hold any test's event loop up past the bound.
  const config = loadConfig({ APP_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: database.url, MAX_EVENT_LOOP_DELAY_MS: '0', ...options.env });
  const builder = Test.createTestingModule({ imports: [AppModule.forRoot(config), ...(options.modules ?? [])], controllers: options.controllers });
  for (const { provide, useValue } of options.overrides ?? []) builder.overrideProvider(provide).useValue(useValue);
  const moduleRef = await builder.compile();
  const app = moduleRef.createNestApplication<NestFastifyApplication>(createFastifyAdapter(config), {
    ...NEST_APP_OPTIONS,
    logger: false,
  });
  configureApp(app);
  try {
    await app.init();
  } catch (error) {
    // A start that fails still opened the database: close what it opened.
    await app.close().catch(() => undefined);
    throw error;
  }
  await app.getHttpAdapter().getInstance().ready();
  const createKey = async (input: CreateApiKeyInput) => {
    const { key, secret } = await app.get(ApiKeysService).create(input);
    return { id: key.id, accountId: key.account.id, secret };
  };
  const { secret: apiKey } = await createKey({ plan: 'enterprise', name: 'e2e', perMinute: 1_000_000, perDay: 1_000_000_000 });
  const anonymous = new ApiClient(app);
  return {
    app,
    config,
    database,
    apiKey,
    client: anonymous.withHeaders({ authorization: `Bearer ${apiKey}` }),
    anonymous,
    createKey,
    close: async () => {
      await app.close();
      if (!options.database) await database.drop();
    },
  };
}
