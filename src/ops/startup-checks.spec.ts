import { occupiedPort } from '../../test/support/ports';
import { checkListenAddress, describeDatabaseFailure, describeStartupFailure, isTransientDatabaseFailure } from './startup-checks';

const failure = (fields: Record<string, unknown>) => Object.assign(new Error('driver says'), fields);
const settings = { databaseUrl: 'mysql://app:s3cret@db.internal:3307/animal_store', host: '0.0.0.0', port: 3000 };

describe('the one line of a failed start', () => {
  it.each([
    [{ code: 'ECONNREFUSED', address: '10.0.0.5', port: 3307 }, 'DATABASE_URL: nothing accepts connections at 10.0.0.5:3307 (connection refused); start MySQL or MariaDB there, or correct the host and port in DATABASE_URL'],
    [{ code: 'ER_BAD_DB_ERROR' }, 'DATABASE_URL: the database "animal_store" does not exist on db.internal:3307; it must be created first: CREATE DATABASE `animal_store` CHARACTER SET utf8mb4;'],
    [{ code: 'ER_ACCESS_DENIED_ERROR' }, 'DATABASE_URL: db.internal:3307 refused the login of user "app" to database "animal_store" (ER_ACCESS_DENIED_ERROR); correct the user and password in DATABASE_URL, or grant the user that database'],
    [{ code: 'ENOTFOUND', syscall: 'getaddrinfo', hostname: 'db.internal' }, 'DATABASE_URL: the host of db.internal:3307 does not resolve; correct the host in DATABASE_URL'],
    [{ code: 'EADDRINUSE', syscall: 'listen' }, 'PORT: 0.0.0.0:3000 is already in use by another process; stop it, or set PORT to a free port'],
    [{ code: 'ENOTFOUND', syscall: 'getaddrinfo', hostname: '0.0.0.0' }, 'HOST: "0.0.0.0" does not resolve to an address; set HOST to an address of this machine, such as 0.0.0.0 (every interface) or 127.0.0.1'],
    [{ code: 'EADDRNOTAVAIL', syscall: 'listen' }, 'HOST: 0.0.0.0 is not an address of this machine; set HOST to one of its addresses, such as 0.0.0.0 (every interface) or 127.0.0.1'],
  ])('says %p in one line naming the variable, never the password', (fields, line) => {
    expect(describeStartupFailure(failure(fields), settings)).toBe(line);
    expect(line).not.toContain('s3cret');
  });

  it('names the SQLite store when its folder or file cannot be made, and nothing for another file', () => {
    const url = 'sqlite:/proc/nope/x.db';
    expect(describeDatabaseFailure(failure({ code: 'ENOENT', syscall: 'mkdir', path: '/proc/nope' }), url)).toBe(
      'DATABASE_URL: cannot make the SQLite store /proc/nope/x.db (a folder on its path cannot be made); set DATABASE_URL to sqlite:<path> in a folder this user may write, such as sqlite:./data/animal-store.db',
    );
    expect(describeDatabaseFailure(failure({ code: 'SQLITE_CANTOPEN' }), url)).toMatch(/^DATABASE_URL: cannot make the SQLite store \/proc\/nope\/x.db \(SQLite cannot open the file there\)/);
    // A backup file that cannot be written is the command's own error, not the store's.
    expect(describeDatabaseFailure(failure({ code: 'EACCES', syscall: 'open', path: '/backups/store.backup' }), url)).toBeUndefined();
  });

  it('leaves an error it does not know alone, so a bug keeps its stack', () => {
    expect(describeStartupFailure(new TypeError('x is undefined'), settings)).toBeUndefined();
    expect(describeStartupFailure(failure({ code: 'ER_PARSE_ERROR' }), settings)).toBeUndefined();
  });

  it('tries again only what may pass once the database has started', () => {
    expect(isTransientDatabaseFailure(failure({ code: 'ECONNREFUSED' }))).toBe(true);
    expect(isTransientDatabaseFailure(failure({ code: 'ER_BAD_DB_ERROR' }))).toBe(false);
    expect(isTransientDatabaseFailure(failure({ code: 'ER_ACCESS_DENIED_ERROR' }))).toBe(false);
  });
});

describe('checkListenAddress', () => {
  it('refuses a port in use with the error the line is made from, and lets a free one go again', async () => {
    const taken = await occupiedPort();
    try {
      await expect(checkListenAddress('127.0.0.1', taken.port)).rejects.toMatchObject({ code: 'EADDRINUSE', syscall: 'listen' });
    } finally {
      await taken.close();
    }
    await expect(checkListenAddress('127.0.0.1', taken.port)).resolves.toBeUndefined();
    await expect(checkListenAddress('127.0.0.1', taken.port)).resolves.toBeUndefined();
  });
});
