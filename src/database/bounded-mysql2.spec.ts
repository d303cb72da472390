import { BoundedPool, sessionBoundsSql } from './bounded-mysql2';
import { DatabaseUnavailableError } from './database.errors';

type Acquired = (error: Error | null, connection?: FakeConnection) => void;

class FakeConnection {
  readonly statements: string[] = [];
  released = 0;
  destroyed = false;
  failSetup?: Error;

  query(sql: string, callback: (error: Error | null) => void): void {
    this.statements.push(sql);
    setImmediate(() => callback(this.failSetup ?? null));
  }

  release(): void {
    this.released++;
  }

  destroy(): void {
    this.destroyed = true;
  }
}

/** A pool that keeps each request for a connection until the spec answers it. */
class FakePool {
  readonly waiting: Acquired[] = [];

  getConnection(callback: Acquired): void {
    this.waiting.push(callback);
  }

  end(): void {}
}

describe('BoundedPool', () => {
  const bounds = { acquireTimeoutMs: 2_000, statementTimeoutMs: 5_000 };
  let pool: FakePool;
  let bounded: BoundedPool;

  const acquire = () =>
    new Promise<FakeConnection>((resolve, reject) =>
      bounded.getConnection((error, connection) => (error ? reject(error) : resolve(connection as unknown as FakeConnection))),
    );

  beforeEach(() => {
    pool = new FakePool();
    bounded = new BoundedPool(pool as never, bounds);
  });

  afterEach(() => jest.useRealTimers());

  it('bounds a new connection\'s session once, before handing it over, and not again when it is had again', async () => {
    const connection = new FakeConnection();
    const first = acquire();
    pool.waiting.shift()!(null, connection);
    await expect(first).resolves.toBe(connection);
    const second = acquire();
    pool.waiting.shift()!(null, connection);
    await expect(second).resolves.toBe(connection);
    expect(connection.statements).toEqual(['SET SESSION /*M! max_statement_time = 5, */ innodb_lock_wait_timeout = 5']);
  });

  it('gives up on a connection that has not come within the bound, and sends the late one back to the pool unused', async () => {
    jest.useFakeTimers();
    const waited = acquire();
    jest.advanceTimersByTime(bounds.acquireTimeoutMs);
    await expect(waited).rejects.toThrow(DatabaseUnavailableError);
    await expect(waited).rejects.toMatchObject({ reason: 'no database connection within 2000 ms', retryAfterSeconds: 2 });
    jest.useRealTimers();
    const late = new FakeConnection();
    pool.waiting.shift()!(null, late);
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(late.released).toBe(1);
  });

  it('passes on the failure of a connection that could not be had, and destroys one whose session could not be bounded', async () => {
    const refused = acquire();
    pool.waiting.shift()!(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    await expect(refused).rejects.toMatchObject({ code: 'ECONNREFUSED' });

    const unbounded = new FakeConnection();
    unbounded.failSetup = new Error('Unknown system variable');
    const failed = acquire();
    pool.waiting.shift()!(null, unbounded);
    await expect(failed).rejects.toThrow('Unknown system variable');
    expect({ destroyed: unbounded.destroyed, released: unbounded.released }).toEqual({ destroyed: true, released: 0 });
  });

  it('bounds row-lock waits in whole seconds, at least one, and statements to the millisecond on MariaDB', () => {
    expect(sessionBoundsSql({ acquireTimeoutMs: 1_000, statementTimeoutMs: 250 })).toBe(
      'SET SESSION /*M! max_statement_time = 0.25, */ innodb_lock_wait_timeout = 1',
    );
    expect(sessionBoundsSql({ acquireTimeoutMs: 1_000, statementTimeoutMs: 4_500 })).toBe(
      'SET SESSION /*M! max_statement_time = 4.5, */ innodb_lock_wait_timeout = 5',
    );
  });
});
