import { ConfigError, loadConfig } from './app-config';

describe('loadConfig', () => {
  it('needs no variables: embedded store, port 3000, the specification plans', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      databaseUrl: 'sqlite:./data/animal-store.db',
      appEnv: 'development',
      bodyLimitBytes: 16384,
      banAfterRejections: 30,
      banSeconds: 900,
      redisUrl: undefined,
    });
    expect(config.rateLimitPlans.free).toEqual({ perMinute: 60, perDay: 1000 });
    expect(config.rateLimitPlans.business).toEqual({ perMinute: 1000, perDay: 100000 });
  });

  it('overrides only the plans RATE_LIMIT_PLANS names', () => {
    const config = loadConfig({ RATE_LIMIT_PLANS: '{"free":{"perMinute":5,"perDay":8},"pro":{"perDay":20}}' });
    expect(config.rateLimitPlans.free).toEqual({ perMinute: 5, perDay: 8 });
    expect(config.rateLimitPlans.pro).toEqual({ perMinute: 300, perDay: 20 });
    expect(config.rateLimitPlans.business).toEqual({ perMinute: 1000, perDay: 100000 });
  });

  it.each([
    [{ PORT: 'abc' }, /^Invalid configuration: PORT: /],
    [{ PORT: '70000' }, /PORT/],
    [{ DATABASE_URL: 'postgres://x' }, /DATABASE_URL/],
    [{ APP_ENV: 'prod' }, /APP_ENV/],
    [{ REDIS_URL: 'localhost:6379' }, /REDIS_URL/],
    [{ BODY_LIMIT_BYTES: '12kb' }, /BODY_LIMIT_BYTES/],
    [{ RATE_LIMIT_PLANS: '{"gold":{"perMinute":1,"perDay":1}}' }, /RATE_LIMIT_PLANS: unknown plan "gold"/],
    [{ RATE_LIMIT_PLANS: '{"free":{"perMinute":0}}' }, /RATE_LIMIT_PLANS/],
    [{ RATE_LIMIT_PLANS: 'nope' }, /RATE_LIMIT_PLANS: is not valid JSON/],
    [{ PUBLIC_BASE_URL: 'https://api.example.com' }, /PUBLIC_BASE_URL/],
    [{ APP_ENV: 'production' }, /ALLOW_SQLITE_IN_PRODUCTION/],
  ])('stops on %p with one line naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
    try {
      loadConfig(env);
    } catch (error) {
      expect((error as Error).message).not.toContain('\n');
    }
  });

  it('runs production on the embedded store only when explicitly allowed', () => {
    expect(loadConfig({ APP_ENV: 'production', ALLOW_SQLITE_IN_PRODUCTION: 'true' }).appEnv).toBe('production');
    expect(loadConfig({ APP_ENV: 'production', DATABASE_URL: 'mysql://u:p@db:3306/store' }).appEnv).toBe('production');
  });
});
