import 'reflect-metadata';
import { type DynamicModule, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppConfig, ConfigError, loadConfig } from './config/app-config';
import { Clock } from './config/clock';
import { TypeOrmUnitOfWork } from './database/typeorm-unit-of-work';
import { KeyChangeChannel } from './auth/domain/key-change';
import { UsageReports } from './usage/application/usage-reports';
import { TypeOrmUsageStore } from './usage/infrastructure/typeorm-usage.store';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { DomainError } from './errors/domain-error';
import { HttpModule } from './http/http.module';
import { ApiKeysService } from './auth/application/api-keys.service';
import { AuthModule } from './auth/auth.module';
import { RefusedError, runKeysCli, usage, UsageError } from './auth/cli/keys-cli';
// Loaded, not started, so that every module's scopes are declared as the service declares them.
import './app.module';

/** The same configuration, database and auth modules as the server (auth's guards need the route kernel), without a server. */
@Module({})
class KeysCliModule {
  static forRoot(config: AppConfig): DynamicModule {
    return { module: KeysCliModule, imports: [ConfigModule.forRoot(config), HttpModule, DatabaseModule, AuthModule] };
  }
}

async function main(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(usage());
    return 0;
  }
  // A provider that refuses the configuration (the plan table) reaches the catch below as its one line, unlogged.
  const app = await NestFactory.createApplicationContext(KeysCliModule.forRoot(loadConfig()), { logger: ['error'], abortOnError: false, bufferLogs: true, autoFlushLogs: false });
  app.flushLogs();
  try {
    const config = app.get(AppConfig);
    const store = new TypeOrmUsageStore(app.get(TypeOrmUnitOfWork), config.databaseUrl.startsWith('sqlite:') ? 'sqlite' : 'mysql');
    const services = { usage: new UsageReports(store, app.get(Clock), config), changes: app.get(KeyChangeChannel) };
    await runKeysCli(argv, app.get(ApiKeysService), { line: (text) => console.log(text) }, services);
    return 0;
  } finally {
    await app.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError) {
      console.error(`keys: ${error.message} (see npm run keys -- --help)`);
      process.exit(2);
    }
    const known = error instanceof RefusedError || error instanceof DomainError || error instanceof ConfigError;
    console.error(known ? `keys: ${(error as Error).message}` : error);
    process.exit(1);
  },
);
