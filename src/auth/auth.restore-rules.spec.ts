import { ACCOUNTS_RESTORE_RULES, API_KEYS_RESTORE_RULES } from './auth.restore-rules';
import { hashApiKeySecret } from './domain/api-key-secret';
import { defineScope } from './domain/scope';

defineScope('pets:read', 'List and get pets');

const account = { id: 1, name: null, owner_key_id: 1, plan: 'pro', per_minute: null, per_day: null, created_at: '2026-12-01T00:00:00.000Z' };
const key = {
  id: 1,
  name: 'ci',
  key_hash: hashApiKeySecret('ask_test_x'),
  account_id: 1,
  scopes: 'pets:read',
  created_at: '2026-12-01T00:00:00.000Z',
  revoked_at: null,
  expires_at: null,
  previous_key_hash: null,
  previous_key_expires_at: null,
  last_used_at: null,
};

describe("restore rules of the auth module's tables", () => {
  it('accept an account and a key as the keys command makes them', async () => {
    await expect(ACCOUNTS_RESTORE_RULES.checkRow(account)).resolves.toBeUndefined();
    await expect(ACCOUNTS_RESTORE_RULES.checkRow({ ...account, name: 'shop', owner_key_id: null, plan: 'enterprise', per_minute: 5, per_day: 50 })).resolves.toBeUndefined();
    await expect(API_KEYS_RESTORE_RULES.checkRow(key)).resolves.toBeUndefined();
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['an account name with white space around it', { name: ' shop', owner_key_id: null }, "an account's name has no white space around it"],
    ['neither name nor owner', { owner_key_id: null }, 'an account has a name or an owner key, not both or neither'],
    ['an enterprise minute over its day', { plan: 'enterprise', per_minute: 60, per_day: 50 }, 'perMinute cannot be larger than perDay'],
  ])('refuse %s', async (_case, change, rule) => {
    await expect(ACCOUNTS_RESTORE_RULES.checkRow({ ...account, ...change } as never)).resolves.toBe(rule);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['no scope', { scopes: '' }, 'unknown scope ""; a key may have pets:read'],
    ['a hash in upper case', { key_hash: hashApiKeySecret('x').toUpperCase() }, 'key_hash must be a SHA-256 hash in 64 lower-case hex digits'],
    ['a previous hash without its end', { previous_key_hash: hashApiKeySecret('y') }, 'a rolled key has both its previous hash and when that hash stops working, or neither'],
    ['a name with white space around it', { name: 'ci ' }, "a key's name has no white space around it"],
  ])('refuse a key with %s', async (_case, change, rule) => {
    await expect(API_KEYS_RESTORE_RULES.checkRow({ ...key, ...change } as never)).resolves.toBe(rule);
  });
});
