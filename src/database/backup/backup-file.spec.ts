import { describeStore } from './backup-cli';
import { describeRows, toFileValue, toStoreValue } from './backup-file';

describe('a backup file', () => {
  it('holds a datetime as one ISO instant whichever store gave it, and gives it back as TypeORM writes it', () => {
    const instant = '2026-12-01T20:45:01.234Z';
    expect(toFileValue('datetime', new Date(instant))).toBe(instant);
    expect(toFileValue('datetime', '2026-12-01 20:45:01.234')).toBe(instant);
    expect(toFileValue('datetime', '2026-12-01 20:45:01')).toBe('2026-12-01T20:45:01.000Z');
    expect(toStoreValue('datetime', instant)).toBe('2026-12-01 20:45:01.234');
    expect(toStoreValue('datetime', null)).toBeNull();
  });

  it('refuses a value that does not fit its column, rather than change it', () => {
    expect(toFileValue('integer', 2 ** 53)).toBeUndefined();
    expect(toFileValue('integer', '12')).toBeUndefined();
    expect(toFileValue('integer', 12n)).toBe(12);
    expect(toFileValue('text', Buffer.from('x'))).toBeUndefined();
    expect(toFileValue('datetime', 'yesterday')).toBeUndefined();
    expect(toFileValue('datetime', new Date(Number.NaN))).toBeUndefined();
    expect(toFileValue('text', null)).toBeNull();
  });

  it('counts rows by table name, in the singular for one', () => {
    expect(describeRows({ pets: 1_204, api_keys: 3, accounts: 1, idempotency_records: 0 })).toBe('1 account, 3 api keys, 0 idempotency records, 1,204 pets');
  });

  it('names a MySQL store without its password, one host or several', () => {
    expect(describeStore('mysql://app:s3cr@t@db1:3306/animal_store')).toBe('mysql://app@db1:3306/animal_store');
    expect(describeStore('mariadb://app:pw@db1:3306,db2:3306/animal_store')).toBe('mariadb://app@db1:3306,db2:3306/animal_store');
    expect(describeStore('mysql://root@127.0.0.1:3306/test')).toBe('mysql://root@127.0.0.1:3306/test');
    expect(describeStore('sqlite:./data/animal-store.db')).toBe('sqlite:./data/animal-store.db');
  });
});
