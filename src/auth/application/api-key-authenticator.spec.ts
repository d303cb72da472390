import { generateApiKeySecret, hashApiKeySecret } from '../domain/api-key-secret';
import { ApiKeyAuthenticator, KEY_CACHE_MAX_ENTRIES, KEY_CACHE_TTL_MS, KEY_VERIFIED_MEMORY_MS } from './api-key-authenticator';
import { FakeClock } from '../../../test/support/fake-clock';
import { InMemoryApiKeyRepository } from '../../../test/support/in-memory-api-key.repository';

const secret = (fill: string) => `ask_test_${fill.repeat(43).slice(0, 43)}`;
/** The i-th of many well-formed secrets, none of them stored. */
const numbered = (i: number) => `ask_test_${String(i).padStart(43, '0')}`;

describe('ApiKeyAuthenticator', () => {
  let repository: InMemoryApiKeyRepository;
  let authenticator: ApiKeyAuthenticator;
  let clock: FakeClock;

  beforeEach(async () => {
    repository = new InMemoryApiKeyRepository();
    clock = new FakeClock(1_000_000);
    authenticator = new ApiKeyAuthenticator(repository, clock);
    await repository.create({ name: 'a', plan: 'pro', customLimits: null, scopes: ['pets:read', 'pets:write'], keyHash: hashApiKeySecret(secret('a')), createdAt: new Date(), expiresAt: null });
  });

  it('returns the active key for its secret', async () => {
    await expect(authenticator.authenticate(secret('a'))).resolves.toMatchObject({ id: 1, plan: 'pro' });
  });

  it('returns null for unknown keys and for tokens that cannot be keys, without a lookup for the latter', async () => {
    await expect(authenticator.authenticate(secret('z'))).resolves.toBeNull();
    expect(repository.lookups).toBe(1);
    for (const token of ['', 'hunter2', `ask_prod_${'a'.repeat(43)}`, `${secret('a')}x`]) {
      await expect(authenticator.authenticate(token)).resolves.toBeNull();
    }
    expect(repository.lookups).toBe(1);
  });

  it('refuses a checksummed key with a mistyped or missing character without a lookup', async () => {
    const issued = generateApiKeySecret('test');
    await repository.create({ name: 'b', plan: 'free', customLimits: null, scopes: ['pets:read', 'pets:write'], keyHash: hashApiKeySecret(issued), createdAt: new Date(), expiresAt: null });
    await expect(authenticator.authenticate(issued)).resolves.toMatchObject({ id: 2 });
    const mistyped = `${issued.slice(0, 20)}${issued[20] === 'x' ? 'y' : 'x'}${issued.slice(21)}`;
    for (const token of [mistyped, issued.slice(0, -1)]) await expect(authenticator.authenticate(token)).resolves.toBeNull();
    expect(repository.lookups).toBe(1);
  });

  it('answers from memory within the TTL and asks the store again after it', async () => {
    await authenticator.authenticate(secret('a'));
    clock.advance(KEY_CACHE_TTL_MS - 1);
    await authenticator.authenticate(secret('a'));
    expect(repository.lookups).toBe(1);
    clock.advance(1);
    await authenticator.authenticate(secret('a'));
    expect(repository.lookups).toBe(2);
  });

  it('remembers a known key and an unknown one alike until the TTL', async () => {
    const key = await authenticator.authenticate(secret('a'));
    await expect(authenticator.authenticate(secret('a'))).resolves.toBe(key);
    await expect(authenticator.authenticate(secret('z'))).resolves.toBeNull();
    await expect(authenticator.authenticate(secret('z'))).resolves.toBeNull();
    expect(repository.lookups).toBe(2);
  });

  it('shares one lookup between concurrent requests with the same key', async () => {
    await Promise.all(Array.from({ length: 20 }, () => authenticator.authenticate(secret('a'))));
    expect(repository.lookups).toBe(1);
  });

  it('refuses a revoked key once the cached entry expires', async () => {
    await expect(authenticator.authenticate(secret('a'))).resolves.not.toBeNull();
    await repository.update(1, { revokedAt: new Date() });
    clock.advance(KEY_CACHE_TTL_MS);
    await expect(authenticator.authenticate(secret('a'))).resolves.toBeNull();
  });

  it('does not remember a failed lookup', async () => {
    const failing = jest.spyOn(repository, 'findByHash').mockRejectedValueOnce(new Error('connection lost'));
    await expect(authenticator.authenticate(secret('a'))).rejects.toThrow('connection lost');
    failing.mockRestore();
    await expect(authenticator.authenticate(secret('a'))).resolves.toMatchObject({ id: 1 });
  });

  it('keeps at most KEY_CACHE_MAX_ENTRIES keys, dropping the least recently used', async () => {
    for (let i = 0; i < KEY_CACHE_MAX_ENTRIES + 5; i++) await authenticator.authenticate(numbered(i));
    const lookups = repository.lookups;
    await authenticator.authenticate(numbered(KEY_CACHE_MAX_ENTRIES + 4));
    expect(repository.lookups).toBe(lookups);
    await authenticator.authenticate(numbered(0));
    expect(repository.lookups).toBe(lookups + 1);
  });

  it('keeps refused keys apart: any number of misses never pushes a verified key out', async () => {
    await authenticator.authenticate(secret('a'));
    for (let i = 0; i < 2 * KEY_CACHE_MAX_ENTRIES; i++) await authenticator.authenticate(numbered(i));
    const lookups = repository.lookups;
    await expect(authenticator.authenticate(secret('a'))).resolves.toMatchObject({ id: 1 });
    expect(repository.lookups).toBe(lookups);
  });

  it('tells which tokens would cost a lookup of a key not verified lately: not a cached answer, not a malformed token, not a key verified within the hour', async () => {
    expect(authenticator.wouldLookUpUnverified(secret('a'))).toBe(true);
    expect(authenticator.wouldLookUpUnverified('hunter2')).toBe(false);
    await authenticator.authenticate(secret('a'));
    await authenticator.authenticate(secret('z'));
    expect([authenticator.wouldLookUpUnverified(secret('a')), authenticator.wouldLookUpUnverified(secret('z'))]).toEqual([false, false]);
    clock.advance(KEY_CACHE_TTL_MS);
    // Both answers are stale; the verified key is still known to this instance, the refused one is not.
    expect([authenticator.wouldLookUpUnverified(secret('a')), authenticator.wouldLookUpUnverified(secret('z'))]).toEqual([false, true]);
    await authenticator.authenticate(secret('a'));
    clock.advance(KEY_VERIFIED_MEMORY_MS - 1);
    expect(authenticator.wouldLookUpUnverified(secret('a'))).toBe(false);
    clock.advance(1);
    expect(authenticator.wouldLookUpUnverified(secret('a'))).toBe(true);
  });

  it('forgets having verified a key once it is found revoked', async () => {
    await authenticator.authenticate(secret('a'));
    await repository.update(1, { revokedAt: new Date() });
    clock.advance(KEY_CACHE_TTL_MS);
    await expect(authenticator.authenticate(secret('a'))).resolves.toBeNull();
    clock.advance(KEY_CACHE_TTL_MS);
    expect(authenticator.wouldLookUpUnverified(secret('a'))).toBe(true);
  });

  it('answers a token that cannot be a key without taking a place in the cache', async () => {
    for (let i = 0; i < KEY_CACHE_MAX_ENTRIES; i++) await authenticator.authenticate(numbered(i));
    const lookups = repository.lookups;
    for (const malformed of ['hunter2', `${numbered(0)}x`, `ask_prod_${'a'.repeat(43)}`]) {
      await expect(authenticator.authenticate(malformed)).resolves.toBeNull();
      await expect(authenticator.authenticate(malformed)).resolves.toBeNull();
    }
    // The least recently used of a full cache is still there: nothing was added in front of it.
    await authenticator.authenticate(numbered(0));
    expect(repository.lookups).toBe(lookups);
  });
});
