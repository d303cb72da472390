// First of all: an older Node is told so in one line, before a native module can crash it.
import './ops/supported-node';
import 'reflect-metadata';
import { type DynamicModule, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { type AppConfig, ConfigError, loadConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { DomainError } from './errors/domain-error';
import { HttpModule } from './http/http.module';
import { ApiKeysService } from './auth/application/api-keys.service';
import { AuthModule } from './auth/auth.module';
import { inCommandLineTerms, parseKeysCommand, RefusedError, usage, UsageError } from './auth/cli/keys-cli';
import { describeDatabaseFailure } from './ops/startup-checks';
// Loaded, not started, so that every module's scopes are declared as the service declares them.
import './app.module';

/** The same configuration, database and auth modules as the server (auth's guards need the route kernel), without a server. */
@Module({})
class KeysCliModule {
  static forRoot(config: AppConfig): DynamicModule {
    return { module: KeysCliModule, imports: [ConfigModule.forRoot(config), HttpModule, DatabaseModule, AuthModule] };
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
    await command(app.get(ApiKeysService), { line: (text) => console.log(text) }).catch((error: unknown) => {
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
