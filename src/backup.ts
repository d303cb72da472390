// First of all: an older Node is told so in one line, before a native module can crash it.
import './ops/supported-node';
import 'reflect-metadata';
import { ConfigError, loadConfig } from './config/app-config';
import { runBackupCli, usage, UsageError } from './database/backup/backup-cli';
import { BackupRefusedError } from './database/backup/backup-file';
import { describeDatabaseFailure } from './ops/startup-checks';
import { RESTORE_RULES } from './restore-rules';

/** `npm run backup -- FILE` and `npm run restore -- FILE`: the command comes first, as package.json passes it. */
async function main([command, ...argv]: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(usage());
    return;
  }
  await runBackupCli(command, argv, () => (databaseUrl = loadConfig().databaseUrl), {
    line: (text) => console.log(text),
    note: (text) => console.error(text),
  }, RESTORE_RULES);
}

const command = process.argv[2] ?? 'backup';
/** Known once the configuration is loaded: a store that cannot be opened is said naming DATABASE_URL. */
let databaseUrl: string | undefined;
main(process.argv.slice(2)).then(
  () => process.exit(0),
  (error: unknown) => {
    if (error instanceof UsageError) {
      console.error(`${command}: ${error.message} (see npm run ${command} -- --help)`);
      process.exit(2);
    }
    // Only the message: a failed statement's error object carries its parameters, which may be a key's hash.
    const known = error instanceof BackupRefusedError || error instanceof ConfigError;
    const environment = databaseUrl && describeDatabaseFailure(error, databaseUrl);
    console.error(`${command}: ${environment || `${known ? '' : 'failed: '}${String((error as Error).message).split('\n')[0]}`}`);
    process.exit(1);
  },
);
