import type { QueryRunner } from 'typeorm';
import { connectWithin, sessionBoundsSql } from './database-bounds';
import { DatabaseUnavailableError } from './database.errors';

/** A query runner whose connection comes when the spec hands it over. */
function pendingRunner() {
  let hand!: (connection: object) => void;
  const connection = new Promise<object>((resolve) => {
    hand = resolve;
  });
  const runner = { connect: () => connection, release: jest.fn(async () => undefined) };
  return { runner: runner as unknown as QueryRunner, release: runner.release, hand };
}

describe('connectWithin', () => {
  afterEach(() => jest.useRealTimers());

  it('connects the runner when a connection comes within the bound', async () => {
    const { runner, release, hand } = pendingRunner();
    const connected = connectWithin(runner, 2_000);
    hand({});
    await expect(connected).resolves.toBeUndefined();
    expect(release).not.toHaveBeenCalled();
  });

  it('gives up on a connection that has not come within the bound, and sends the late one back to the pool', async () => {
    jest.useFakeTimers();
    const { runner, release, hand } = pendingRunner();
    const connected = connectWithin(runner, 2_000);
    jest.advanceTimersByTime(2_000);
    await expect(connected).rejects.toThrow(DatabaseUnavailableError);
    await expect(connected).rejects.toMatchObject({ reason: 'no database connection within 2000 ms', retryAfterSeconds: 2 });
    hand({});
    await jest.runAllTimersAsync();
    expect(release).toHaveBeenCalledTimes(1);
  });
});

describe('sessionBoundsSql', () => {
  it('bounds row-lock waits in whole seconds, at least one, and statements to the millisecond on MariaDB', () => {
    expect(sessionBoundsSql({ acquireTimeoutMs: 1_000, statementTimeoutMs: 250 })).toBe('SET SESSION /*M! max_statement_time = 0.25, */ innodb_lock_wait_timeout = 1');
    expect(sessionBoundsSql({ acquireTimeoutMs: 1_000, statementTimeoutMs: 4_500 })).toBe('SET SESSION /*M! max_statement_time = 4.5, */ innodb_lock_wait_timeout = 5');
  });
});
