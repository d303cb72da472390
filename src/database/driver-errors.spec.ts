import { Logger } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { DatabaseUnavailableError } from './database.errors';
import { describeFailure, isDuplicateKey, isLockConflict, isUnavailable, unavailableOr } from './driver-errors';

const failed = (code: string) => new QueryFailedError('INSERT …', [], Object.assign(new Error(code), { code }));

describe('driver errors', () => {
  it.each(['ER_DUP_ENTRY', 'SQLITE_CONSTRAINT_PRIMARYKEY', 'SQLITE_CONSTRAINT_UNIQUE'])('reads %s as a duplicate key', (code) => {
    expect({ duplicate: isDuplicateKey(failed(code)), lock: isLockConflict(failed(code)) }).toEqual({ duplicate: true, lock: false });
  });

  it.each(['ER_LOCK_WAIT_TIMEOUT', 'ER_LOCK_DEADLOCK'])('reads %s as a lock conflict', (code) => {
    expect({ duplicate: isDuplicateKey(failed(code)), lock: isLockConflict(failed(code)) }).toEqual({ duplicate: false, lock: true });
  });

  it('reads neither into another failure, nor into an error that did not come from a query', () => {
    const notAQuery = Object.assign(new Error('ER_DUP_ENTRY'), { code: 'ER_DUP_ENTRY' });
    for (const error of [failed('SQLITE_BUSY'), notAQuery, undefined]) {
      expect({ duplicate: isDuplicateKey(error), lock: isLockConflict(error) }).toEqual({ duplicate: false, lock: false });
    }
  });

  it("describes a failure for the log by the driver's code and its message, or by the message alone when it starts with the code", () => {
    const duplicate = new QueryFailedError('INSERT …', [], Object.assign(new Error("Duplicate entry '1' for key 'PRIMARY'"), { code: 'ER_DUP_ENTRY' }));
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:3306'), { code: 'ECONNREFUSED' });
    const busy = Object.assign(new Error('SQLITE_BUSY: database is locked'), { code: 'SQLITE_BUSY' });
    expect([duplicate, refused, busy, 'gone'].map(describeFailure)).toEqual([
      "ER_DUP_ENTRY: Duplicate entry '1' for key 'PRIMARY'",
      'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:3306',
      'SQLITE_BUSY: database is locked',
      'gone',
    ]);
  });

  describe('a database that cannot serve', () => {
    // unavailableOr notes an outage in the log; these cases are not one.
    beforeAll(() => jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined));
    afterAll(() => jest.restoreAllMocks());

    const raw = (fields: Record<string, unknown>) => Object.assign(new Error(String(fields.code ?? fields.errno)), fields);
    const unavailable = [
      ['a refused connection', raw({ code: 'ECONNREFUSED' })],
      ['a connection lost under a query', failed('PROTOCOL_CONNECTION_LOST')],
      ['a reset socket', failed('ECONNRESET')],
      ['a server shutting down', failed('ER_SERVER_SHUTDOWN')],
      ['too many connections', raw({ code: 'ER_CON_COUNT_ERROR' })],
      ["MariaDB's max_statement_time", new QueryFailedError('SELECT …', [], raw({ errno: 1969 }))],
      ["MySQL's max_execution_time", failed('ER_QUERY_TIMEOUT')],
      ['a lock not had in time', failed('ER_LOCK_WAIT_TIMEOUT')],
      ['a deadlock victim, as a Galera certification conflict at commit is', failed('ER_LOCK_DEADLOCK')],
      ['a Galera node not ready for statements', failed('ER_UNKNOWN_COM_ERROR')],
      ['SQLite busy past its timeout', failed('SQLITE_BUSY')],
      ['a fatal driver error', raw({ code: 'SOMETHING_NEW', fatal: true })],
      ['no connection within the bound', new DatabaseUnavailableError('no database connection within 2000 ms')],
    ] as const;

    it.each(unavailable)('reads %s as unavailable, and answers it 503 with Retry-After', (_, error) => {
      const answer = unavailableOr(error);
      expect({ unavailable: isUnavailable(error), answer }).toEqual({ unavailable: true, answer: expect.any(DatabaseUnavailableError) });
      expect(answer).toMatchObject({ code: 'service_unavailable', retryAfterSeconds: 2 });
      // The client's message names no host, port or driver code.
      expect((answer as Error).message).toBe('The database is unavailable; retry after the time given in Retry-After');
    });

    it('keeps the driver error for the log, and leaves every other error as it was', () => {
      expect((unavailableOr(raw({ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:3306' })) as DatabaseUnavailableError).reason).toBe(
        'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:3306',
      );
      const others = [failed('ER_DUP_ENTRY'), failed('ER_PARSE_ERROR'), new Error('a bug'), Object.assign(new Error('in use'), { code: 'idempotency_key_in_use' })];
      for (const error of others) expect({ unavailable: isUnavailable(error), answer: unavailableOr(error) }).toEqual({ unavailable: false, answer: error });
    });
  });
});
