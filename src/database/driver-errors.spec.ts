import { QueryFailedError } from 'typeorm';
import { describeFailure, isDuplicateKey, isLockConflict } from './driver-errors';

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
});
