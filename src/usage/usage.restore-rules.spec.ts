import { API_KEY_USAGE_RESTORE_RULES } from './usage.restore-rules';

const row = { key_id: 3, account_id: 2, day: '2026-12-07', success: 10, not_modified: 0, client_error: 1, rate_limited: 0, server_error: 0 };

describe('the restore rules of api_key_usage', () => {
  it('keeps a row as the recorder writes it', async () => {
    await expect(API_KEY_USAGE_RESTORE_RULES.checkRow(row)).resolves.toBeUndefined();
  });

  it.each([
    [{ key_id: 0 }, 'key_id must be an integer'],
    [{ account_id: null }, 'account_id must be an integer'],
    [{ day: '2026-02-30' }, 'day must be a UTC date'],
    [{ day: '07/12/2026' }, 'day must be a UTC date'],
    [{ day: '2026-13-01' }, 'day must be a UTC date'],
    [{ success: -1 }, 'success must be a whole number'],
    [{ rate_limited: 1.5 }, 'rate_limited must be a whole number'],
    [{ server_error: '4' }, 'server_error must be a whole number'],
  ])('refuses %j', async (change, message) => {
    await expect(API_KEY_USAGE_RESTORE_RULES.checkRow({ ...row, ...change })).resolves.toContain(message);
  });
});
