import { hashApiKeySecret } from '../domain/api-key-secret';
import { ApiKeyAuthenticator, KEY_CACHE_MAX_ENTRIES, KEY_CACHE_TTL_MS } from './api-key-authenticator';
import { InMemoryApiKeyRepository } from '../../../test/support/in-memory-api-key.repository';

const secret = (fill: string) => `ask_test_${fill.repeat(43).slice(0, 43)}`;

describe('ApiKeyAuthenticator', () => {
  let repository: InMemoryApiKeyRepository;
  let authenticator: ApiKeyAuthenticator;
  let now: number;

  beforeEach(async () => {
    repository = new InMemoryApiKeyRepository();
    authenticator = new ApiKeyAuthenticator(repository);
    now = 1_000_000;
    authenticator.now = () => now;
    await repository.create({ name: 'a', plan: 'pro', customLimits: null, keyHash: hashApiKeySecret(secret('a')) });
  });

  it('returns the active key for its secret', async () => {
    await expect(authenticator.authenticate(secret('a'))).resolves.toMatchObject({ id: 1, plan: 'pro' });
  });

  it('returns null for unknown keys and for tokens that cannot be keys, without a lookup for the latter', async () => {
    await expect(authenticator.authenticate(secret('z'))).resolves.toBeNull();
    expect(repository.lookups).toBe(1);
    for (const token of ['', 'hunter2', `ask_prod_${'a'.repeat(43)}`, `${secret('a')}x`]) {
      expect(authenticator.authenticate(token)).toBeNull();
    }
    expect(repository.lookups).toBe(1);
  });

  it('answers from memory within the TTL and asks the store again after it', async () => {
    await authenticator.authenticate(secret('a'));
    now += KEY_CACHE_TTL_MS - 1;
    await authenticator.authenticate(secret('a'));
    expect(repository.lookups).toBe(1);
    now += 1;
    await authenticator.authenticate(secret('a'));
    expect(repository.lookups).toBe(2);
  });

  it('answers a known key itself, not a promise, once its lookup has settled', async () => {
    const first = authenticator.authenticate(secret('a'));
    expect(first).toBeInstanceOf(Promise);
    const key = await first;
    expect(authenticator.authenticate(secret('a'))).toBe(key);
    expect(authenticator.authenticate(secret('z'))).toBeInstanceOf(Promise);
    await authenticator.authenticate(secret('z'));
    expect(authenticator.authenticate(secret('z'))).toBeNull();
    expect(repository.lookups).toBe(2);
  });

  it('shares one lookup between concurrent requests with the same key', async () => {
    await Promise.all(Array.from({ length: 20 }, () => authenticator.authenticate(secret('a'))));
    expect(repository.lookups).toBe(1);
  });

  it('refuses a revoked key once the cached entry expires', async () => {
    await expect(authenticator.authenticate(secret('a'))).resolves.not.toBeNull();
    await repository.update(1, { revokedAt: new Date() });
    now += KEY_CACHE_TTL_MS;
    await expect(authenticator.authenticate(secret('a'))).resolves.toBeNull();
  });

  it('does not remember a failed lookup', async () => {
    const failing = jest.spyOn(repository, 'findByHash').mockRejectedValueOnce(new Error('connection lost'));
    await expect(authenticator.authenticate(secret('a'))).rejects.toThrow('connection lost');
    failing.mockRestore();
    await expect(authenticator.authenticate(secret('a'))).resolves.toMatchObject({ id: 1 });
  });

  it('keeps at most KEY_CACHE_MAX_ENTRIES entries, dropping the oldest', async () => {
    const cache = (authenticator as unknown as { cache: Map<string, unknown> }).cache;
    for (let i = 0; i < KEY_CACHE_MAX_ENTRIES + 5; i++) {
      await authenticator.authenticate(`ask_test_${String(i).padStart(43, '0')}`);
    }
    expect(cache.size).toBe(KEY_CACHE_MAX_ENTRIES);
    expect(cache.has(hashApiKeySecret(`ask_test_${String(0).padStart(43, '0')}`))).toBe(false);
  });
});
