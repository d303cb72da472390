import type { DataSource } from 'typeorm';

/**
 * Whether the store answers queries synchronously, on the event loop itself
 * (better-sqlite3), rather than over a connection (mysql2).
 *
 * Run inline, such a query makes the server read, query and answer one request
 * before it reads the next. Deferred to the loop's check phase (setImmediate),
 * every request that has arrived is read first, and their queries and answers
 * then follow in one run, as they do when a networked database answers. Under
 * concurrent load that batching nearly halves the CPU a request costs (README,
 * "Performance"); a single request waits one turn of the loop. The pets
 * repository, which every API call reaches, defers its queries this way; API
 * key lookups are cached, so the few that reach the store run inline.
 */
export function answersOnEventLoop(dataSource: DataSource): boolean {
  return dataSource.options.type === 'better-sqlite3';
}
