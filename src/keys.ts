// First of all: an older Node is told so in one line, before a native module can crash it.
import './ops/supported-node';
import 'reflect-metadata';
import { type DynamicModule, Global, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppConfig, ConfigError, loadConfig } from './config/app-config';
import { Clock } from './config/clock';
import { TransactionHost } from '@nestjs-cls/transactional';
import { KeyChangeChannel } from './auth/domain/key-change';
import { UsageReports } from './usage/application/usage-reports';
import { TypeOrmUsageStore } from './usage/infrastructure/typeorm-usage.store';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { DomainError } from './errors/domain/domain-error';
import { HttpModule } from './http/http.module';
import { KeyLookupGate } from './http/key-lookup-gate';
import { ApiKeysService } from './auth/application/api-keys.service';
import { AuthModule } from './auth/auth.module';
import { inCommandLineTerms, parseKeysCommand, RefusedError, usage, UsageError } from './auth/cli/keys-cli';
import { describeDatabaseFailure } from './ops/startup-checks';
// Loaded, not started, so that every module's scopes are declared as the service declares them.
import './app.module';

/** A command line serves no request, so no client address is ever over its keyless limits. */
class NoAddressLimits extends KeyLookupGate {
  async admits(): Promise<boolean> {
    return true;
  }
}

/** What auth asks of the rate limits, which a command line does not load. */
@Global()
@Module({ providers: [{ provide: KeyLookupGate, useClass: NoAddressLimits }], exports: [KeyLookupGate] })
class CommandLineRequestsModule {}

/** The same configuration, database and auth modules as the server (auth's guards need the route kernel), without a server. */
@Module({})
class KeysCliModule {
  static forRoot(config: AppConfig): DynamicModule {
    return { module: KeysCliModule, imports: [ConfigModule.forRoot(config), HttpModule, DatabaseModule, CommandLineRequestsModule, AuthModule] };
  }
}

/** Known once the configuration is loaded: a store that cannot be opened is said naming DATABASE_URL. */
let databaseUrl: string | undefined;

async function main(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(usage());
    return 0;
  }
  // Checked whole before the store is opened: a malformed line is a usage error (exit 2) even with the store down.
  const command = parseKeysCommand(argv);
  const config = loadConfig();
  databaseUrl = config.databaseUrl;
  // A provider that refuses the configuration (the plan table) reaches the catch below as its one line, unlogged.
  const app = await NestFactory.createApplicationContext(KeysCliModule.forRoot(config), { logger: ['error'], abortOnError: false, bufferLogs: true, autoFlushLogs: false });
  app.flushLogs();
  try {
    const store = new TypeOrmUsageStore(app.get(TransactionHost), config.databaseUrl.startsWith('sqlite:') ? 'sqlite' : 'mysql');
    const services = { usage: new UsageReports(store, app.get(Clock), config), changes: app.get(KeyChangeChannel) };
    await command(app.get(ApiKeysService), { line: (text) => console.log(text) }, services).catch((error: unknown) => {
      throw inCommandLineTerms(error);
    });
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
    const environment = databaseUrl && describeDatabaseFailure(error, databaseUrl);
    console.error(known ? `keys: ${(error as Error).message}` : environment ? `keys: ${environment}` : error);
    process.exit(1);
  },
);
