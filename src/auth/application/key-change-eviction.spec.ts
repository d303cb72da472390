import { FakeClock } from '../../../test/support/fake-clock';
import { InMemoryApiKeyRepository } from '../../../test/support/in-memory-api-key.repository';
import { hashApiKeySecret } from '../domain/api-key-secret';
import { parseKeyChange } from '../domain/key-change';
import { ApiKeyAuthenticator } from './api-key-authenticator';

const secret = (fill: string) => `ask_test_${fill.repeat(43).slice(0, 43)}`;

describe('a key change told to an instance', () => {
  let repository: InMemoryApiKeyRepository;
  let authenticator: ApiKeyAuthenticator;

  beforeEach(async () => {
    repository = new InMemoryApiKeyRepository();
    // The clock stands still: a cached answer never lapses by itself here.
    authenticator = new ApiKeyAuthenticator(repository, new FakeClock(1_000_000));
    for (const name of ['a', 'b']) {
      await repository.create({ name, account: 'shop', plan: 'pro', customLimits: null, scopes: ['pets:read'], keyHash: hashApiKeySecret(secret(name)), createdAt: new Date(), expiresAt: null });
    }
    await repository.create({ name: 'c', plan: 'pro', customLimits: null, scopes: ['pets:read'], keyHash: hashApiKeySecret(secret('c')), createdAt: new Date(), expiresAt: null });
    for (const name of ['a', 'b', 'c']) await authenticator.authenticate(secret(name));
  });

  it('drops the one key it names from the cache, so its revocation is seen at its next request', async () => {
    await repository.update(1, { revokedAt: new Date() });
    await expect(authenticator.authenticate(secret('a'))).resolves.toMatchObject({ id: 1 });
    authenticator.forget({ keyId: 1 });
    await expect(authenticator.authenticate(secret('a'))).resolves.toBeNull();
    const lookups = repository.lookups;
    await authenticator.authenticate(secret('b'));
    expect(repository.lookups).toBe(lookups);
  });

  it("drops every key of the account it names, and no other account's", async () => {
    const lookups = repository.lookups;
    authenticator.forget({ accountId: 1 });
    for (const name of ['a', 'b', 'c']) await authenticator.authenticate(secret(name));
    expect(repository.lookups).toBe(lookups + 2);
  });

  it.each(['', 'revoke 1', '{"keyId":"1"}', '{"keyId":0}', '{"accountId":1.5}', 'null', '{}'])('ignores a message that is not a key change: %p', (message) => {
    expect(parseKeyChange(message)).toBeNull();
  });

  it('reads a key or an account from a message', () => {
    expect(parseKeyChange('{"keyId":7}')).toEqual({ keyId: 7 });
    expect(parseKeyChange('{"accountId":3}')).toEqual({ accountId: 3 });
  });
});
