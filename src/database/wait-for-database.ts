import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { isTransientDatabaseFailure } from '../ops/startup-checks';
import { createDataSourceOptions } from './database-options';

/** How often the server tries to reach its database at start, and how long it waits between tries. */
export const START_ATTEMPTS = 5;
export const START_RETRY_DELAY_MS = 2_000;

/**
 * Opens and closes the store DATABASE_URL names, trying again while the
 * failure may pass (a database still starting beside the service) and telling
 * `onRetry` of each failed try; any other failure, or the last, is thrown at
 * once. The server calls it before it builds the app, so a database it cannot
 * reach is said in a line within seconds, not after the module's own retries.
 */
export async function waitForDatabase(
  databaseUrl: string,
  onRetry: (error: unknown, attempt: number, attempts: number) => void,
  { attempts = START_ATTEMPTS, delayMs = START_RETRY_DELAY_MS } = {},
): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      const dataSource = await new DataSource(createDataSourceOptions(databaseUrl)).initialize();
      await dataSource.destroy();
      return;
    } catch (error) {
      if (attempt >= attempts || !isTransientDatabaseFailure(error)) throw error;
      onRetry(error, attempt, attempts);
      await sleep(delayMs);
    }
  }
}
