import { createHash } from 'node:crypto';
import { checksumLine, startChecksum } from './backup-file';
import { describeRow, idProblem, MAX_NEXT_ID, nextIdProblem, type TableRestoreRules } from './restore-rules';

describe('the rules every restored table shares', () => {
  it('lets a counter hand out 2^32 more ids, all at most 2^53 - 1, and no further', () => {
    expect(MAX_NEXT_ID).toBe(2 ** 53 - 2 ** 32);
    expect(nextIdProblem('pets', MAX_NEXT_ID)).toBeUndefined();
    expect(nextIdProblem('pets', 1)).toBeUndefined();
    expect(nextIdProblem('pets', MAX_NEXT_ID + 1)).toBe(
      'the next pets id would be 9007194959773697, which leaves too few ids below 2^53 - 1 (at most 9007194959773696)',
    );
  });

  it('holds every id column to the API rule, null only where the column may be null', () => {
    expect(idProblem({ id: 7, owner_key_id: null }, ['id', 'owner_key_id'], ['owner_key_id'])).toBeUndefined();
    expect(idProblem({ id: 7, owner_key_id: null }, ['id', 'owner_key_id'])).toBe('owner_key_id must be an integer from 1 to 9007199254740991');
    expect(idProblem({ id: 0 }, ['id'])).toBe('id must be an integer from 1 to 9007199254740991');
    expect(idProblem({ id: '7' }, ['id'])).toBe('id must be an integer from 1 to 9007199254740991');
  });

  it('names a row by its key columns alone', () => {
    const rules: TableRestoreRules = { table: 'idempotency_records', rowKey: ['api_key_id'], checkRow: async () => undefined };
    expect(describeRow(rules, { api_key_id: 3, idempotency_key: 'abc', response_body: '{}' })).toBe('idempotency_records api_key_id 3');
  });

  it('writes the checksum line as the SHA-256 of the lines fed to it', () => {
    const digest = startChecksum();
    digest.update('{"a":1}\n');
    digest.update('{"b":2}\n');
    expect(checksumLine(digest)).toBe(`{"sha256":"${createHash('sha256').update('{"a":1}\n{"b":2}\n').digest('hex')}"}\n`);
  });
});
