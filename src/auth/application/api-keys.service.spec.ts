import { loadConfig } from '../../config/app-config';
import { hasOwnAccount } from '../domain/api-key';
import { hashApiKeySecret } from '../domain/api-key-secret';
import type { NewApiKey } from '../domain/api-key.repository';
import { AccountCreatedMeanwhileError, ApiKeyNotFoundError, InvalidApiKeyRequestError, InvalidScopesError } from '../domain/api-key.errors';
import { ApiKeysService } from './api-keys.service';
import { PlanTable } from './plan-table';
import { FakeClock } from '../../../test/support/fake-clock';
import { InMemoryApiKeyRepository } from '../../../test/support/in-memory-api-key.repository';
// The scopes the service's keys may have are those its modules declare: here the pets module's, pets:read and pets:write.
import '../../pets/http/pet-scopes';

describe('ApiKeysService', () => {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const make = (env: Record<string, string> = {}) => {
    const repository = new InMemoryApiKeyRepository();
    const config = loadConfig({ ALLOW_SQLITE_IN_PRODUCTION: 'true', PUBLIC_BASE_URL: 'https://api.example.com/v1', STAGING_BASE_URL: 'https://staging.example.com/v1', ...env });
    return { repository, service: new ApiKeysService(repository, PlanTable.fromOverrides(config.rateLimitPlans), config, clock) };
  };

  it('creates a key with 256 random bits, stores only its hash and returns the secret once', async () => {
    const { repository, service } = make();
    const { key, secret } = await service.create({ plan: 'free', name: ' ci ' });
    expect(secret).toMatch(/^ask_test_[A-Za-z0-9_-]{43}[A-Za-z0-9]{6}$/);
    expect(key).toMatchObject({ plan: 'free', name: 'ci', customLimits: null, revokedAt: null });
    expect(repository.rows[0].keyHash).toBe(hashApiKeySecret(secret));
    const other = await service.create({ plan: 'free' });
    expect(other.secret).not.toBe(secret);
  });

  it('gives a key every scope, those declared later included, unless told which, each once and in order; an unknown scope or none is refused', async () => {
    const { repository, service } = make();
    await expect(service.create({ plan: 'free' })).resolves.toMatchObject({ key: { scopes: ['*'] } });
    await expect(service.create({ plan: 'free', scopes: ['pets:read'] })).resolves.toMatchObject({ key: { scopes: ['pets:read'] } });
    await expect(service.create({ plan: 'free', scopes: ['pets:write', 'pets:read', 'pets:write'] })).resolves.toMatchObject({
      key: { scopes: ['pets:read', 'pets:write'] },
    });
    await expect(service.create({ plan: 'free', scopes: ['pets:admin'] })).rejects.toThrow(InvalidScopesError);
    await expect(service.create({ plan: 'free', scopes: [] })).rejects.toThrow(InvalidScopesError);
    expect(repository.rows.map((row) => row.key.scopes)).toEqual([['*'], ['pets:read'], ['pets:read', 'pets:write']]);
  });

  it('keeps a key\'s scopes when it is rolled or moved to another plan', async () => {
    const { service } = make();
    const { key } = await service.create({ plan: 'free', scopes: ['pets:read'] });
    await service.roll(key.id, 0);
    await service.setPlan(key.id, { plan: 'pro' });
    expect((await service.list())[0]).toMatchObject({ plan: 'pro', scopes: ['pets:read'] });
  });

  it('sets an expiry from the clock when asked, and none otherwise', async () => {
    const { service } = make();
    await expect(service.create({ plan: 'free', expiresInMs: 60_000 })).resolves.toMatchObject({
      key: { createdAt: new Date(clock.now()), expiresAt: new Date(clock.now() + 60_000) },
    });
    await expect(service.create({ plan: 'free' })).resolves.toMatchObject({ key: { expiresAt: null } });
  });

  it('prefixes keys ask_live_ in production', async () => {
    const { service } = make({ APP_ENV: 'production' });
    await expect(service.create({ plan: 'pro' })).resolves.toMatchObject({ secret: expect.stringMatching(/^ask_live_/) });
  });

  it.each([
    [{ plan: 'gold' }, /unknown plan "gold"/],
    [{ plan: 'enterprise' }, /^an enterprise plan needs perMinute and perDay \(integers from 1 to 4294967295\)$/],
    [{ plan: 'enterprise', perMinute: 10 }, /^an enterprise plan needs perMinute and perDay/],
    [{ plan: 'enterprise', perMinute: 100, perDay: 10 }, /^perMinute cannot be larger than perDay$/],
    [{ plan: 'pro', perMinute: 10, perDay: 100 }, /^perMinute and perDay apply to the enterprise plan only$/],
    [{ plan: 'pro', name: 'x'.repeat(101) }, /^a key's name has at most 100 characters$/],
    [{ plan: 'pro', account: ' ' }, /^an account's name has 1 to 100 characters$/],
  ])('refuses %p', async (input, message) => {
    const { repository, service } = make();
    await expect(service.create(input)).rejects.toThrow(InvalidApiKeyRequestError);
    await expect(service.create(input)).rejects.toThrow(message);
    expect(repository.rows).toHaveLength(0);
  });

  it('gives enterprise keys their own limits and other keys their plan limits from configuration', async () => {
    const { service } = make({ RATE_LIMIT_PLANS: '{"free":{"perMinute":5,"perDay":8}}' });
    const enterprise = await service.create({ plan: 'enterprise', perMinute: 7, perDay: 70 });
    const free = await service.create({ plan: 'free' });
    expect(service.limitsOf(enterprise.key)).toEqual({ perMinute: 7, perDay: 70 });
    expect(service.limitsOf(free.key)).toEqual({ perMinute: 5, perDay: 8 });
  });

  it('gives a key without an account one of its own, and puts keys with --account in one account on its very plan', async () => {
    const { service } = make();
    const { key: alone } = await service.create({ plan: 'free' });
    expect(alone.account).toEqual({ id: expect.any(Number), name: `key-${alone.id}`, ownerKeyId: alone.id });
    expect(hasOwnAccount(alone)).toBe(true);
    const { key: first } = await service.create({ plan: 'enterprise', perMinute: 5, perDay: 50, account: ' acme ' });
    const { key: second } = await service.create({ plan: 'enterprise', perMinute: 5, perDay: 50, account: 'acme' });
    expect(second.account).toEqual({ id: first.account.id, name: 'acme', ownerKeyId: null });
    expect([first, second].map(hasOwnAccount)).toEqual([false, false]);
    expect(first.account.id).not.toBe(alone.account.id);
    await expect(service.create({ plan: 'pro', account: 'acme' })).rejects.toThrow(
      'account "acme" is on plan enterprise (5/minute, 50/day), not plan pro; change the account\'s plan to join it on another',
    );
    await expect(service.create({ plan: 'enterprise', perMinute: 5, perDay: 51, account: 'acme' })).rejects.toThrow(InvalidApiKeyRequestError);
    await expect(service.create({ plan: 'free', account: 'key-77' })).rejects.toThrow(InvalidApiKeyRequestError);
    await expect(service.create({ plan: 'free', account: '  ' })).rejects.toThrow(InvalidApiKeyRequestError);
    const joined = await service.create({ plan: 'free', account: alone.account.name });
    expect(joined.key.account).toEqual(alone.account);
    expect(hasOwnAccount(joined.key)).toBe(false);
  });

  describe('when another command creates the same new account at the same moment', () => {
    /** The store answers the first create of "acme" as a database would after the other command's insert won. */
    const racing = (otherPlan: string) => {
      const { repository, service } = make();
      const create = repository.create.bind(repository);
      let raced = false;
      jest.spyOn(repository, 'create').mockImplementation(async (key: NewApiKey) => {
        if (key.account === 'acme' && !raced) {
          raced = true;
          await create({ ...key, plan: otherPlan as NewApiKey['plan'], keyHash: 'the other command' });
          throw new AccountCreatedMeanwhileError('acme');
        }
        return create(key);
      });
      return { repository, service };
    };

    it('joins the account the other command made, on the same plan', async () => {
      const { repository, service } = racing('pro');
      const { key } = await service.create({ plan: 'pro', account: 'acme' });
      expect(key.account.name).toBe('acme');
      expect(repository.rows.map((row) => row.key.account.id)).toEqual([key.account.id, key.account.id]);
    });

    it('refuses, with the usual one-line reason, when the other command made it on another plan', async () => {
      const { repository, service } = racing('business');
      await expect(service.create({ plan: 'pro', account: 'acme' })).rejects.toThrow(InvalidApiKeyRequestError);
      expect(repository.rows).toHaveLength(1);
    });
  });

  it('changes the plan of the key\'s account, so of all its keys and of no other', async () => {
    const { service } = make();
    const { key: first } = await service.create({ plan: 'free', account: 'team' });
    const { key: second } = await service.create({ plan: 'free', account: 'team' });
    const { key: other } = await service.create({ plan: 'free' });
    await service.setPlan(second.id, { plan: 'pro' });
    const plans = (await service.list()).map((key) => [key.id, key.plan]);
    expect(plans).toEqual([
      [first.id, 'pro'],
      [second.id, 'pro'],
      [other.id, 'free'],
    ]);
  });

  it('moves a key to another plan, and revokes it', async () => {
    const { repository, service } = make();
    const { key } = await service.create({ plan: 'free' });
    await expect(service.setPlan(key.id, { plan: 'enterprise', perMinute: 9, perDay: 99 })).resolves.toMatchObject({
      plan: 'enterprise',
      customLimits: { perMinute: 9, perDay: 99 },
    });
    await expect(service.setPlan(key.id, { plan: 'business' })).resolves.toMatchObject({ plan: 'business', customLimits: null });
    const revoked = await service.revoke(key.id);
    expect(revoked.revokedAt).toBeInstanceOf(Date);
    expect(repository.rows[0].key.revokedAt).toEqual(revoked.revokedAt);
  });

  it('rolls a key to a new secret, keeping the old hash until the grace ends', async () => {
    const { repository, service } = make();
    const { key, secret } = await service.create({ plan: 'pro' });
    const rolled = await service.roll(key.id, 60_000);
    expect(rolled).toMatchObject({ key: { id: key.id, plan: 'pro' }, previousUntil: new Date(clock.now() + 60_000) });
    expect(rolled.secret).not.toBe(secret);
    expect(repository.rows[0]).toMatchObject({ keyHash: hashApiKeySecret(rolled.secret), previousKeyHash: hashApiKeySecret(secret) });
    await service.roll(key.id, 0);
    expect(repository.rows[0]).toMatchObject({ previousKeyHash: null, previousKeyExpiresAt: null });
  });

  it('says which id is unknown', async () => {
    const { service } = make();
    await expect(service.roll(42, 0)).rejects.toThrow(ApiKeyNotFoundError);
    await expect(service.revoke(42)).rejects.toThrow(ApiKeyNotFoundError);
    await expect(service.setPlan(42, { plan: 'pro' })).rejects.toThrow('No API key with id 42');
  });

  it('provisions a development Pro key on an empty store only, and only in development', async () => {
    const dev = make({ APP_ENV: 'development' });
    await expect(dev.service.provisionDevelopmentKey()).resolves.toMatchObject({ key: { plan: 'pro', name: 'development' } });
    await expect(dev.service.provisionDevelopmentKey()).resolves.toBeNull();
    for (const APP_ENV of ['test', 'staging', 'production']) {
      const other = make({ APP_ENV });
      await expect(other.service.provisionDevelopmentKey()).resolves.toBeNull();
      expect(other.repository.rows).toHaveLength(0);
    }
  });
});
