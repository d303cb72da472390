import { ConfigError, loadConfig } from './app-config';

describe('loadConfig', () => {
  it('needs no variables: embedded store, port 3000, no plan overrides', () => {
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
      idempotencyTtlSeconds: 86400,
      orderHoldSeconds: 1800,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      maxEventLoopDelayMs: 1_000,
      databaseAcquireTimeoutMs: 2000,
      databaseStatementTimeoutMs: 3000,
    });
    expect(config.rateLimitPlans).toEqual({});
    expect(config.planOpenOrders).toEqual({});
  });

  it('points links at this very process when no base URL is set, and at the configured one when it is', () => {
    expect(loadConfig({ PORT: '3999' })).toMatchObject({ ownBaseUrl: 'http://localhost:3999/v1', publicBaseUrl: 'http://localhost:3999/v1' });
    expect(loadConfig({})).toMatchObject({ ownBaseUrl: 'http://localhost:3000/v1', stagingBaseUrl: 'http://localhost:3000/v1' });
    expect(loadConfig({ PORT: '3999', PUBLIC_BASE_URL: 'https://api.example.com/v1' })).toMatchObject({ ownBaseUrl: 'https://api.example.com/v1' });
    expect(loadConfig({ APP_ENV: 'staging', STAGING_BASE_URL: 'https://staging.example.com/v1' })).toMatchObject({
      ownBaseUrl: 'https://staging.example.com/v1',
      publicBaseUrl: 'http://localhost:3000/v1',
    });
  });

  it('reads ORDER_HOLD_SECONDS, and each plan\'s openOrders from RATE_LIMIT_PLANS apart from its windows', () => {
    const config = loadConfig({ ORDER_HOLD_SECONDS: '60', RATE_LIMIT_PLANS: '{"free":{"perMinute":5,"openOrders":1},"pro":{"openOrders":7}}' });
    expect(config.orderHoldSeconds).toBe(60);
    expect(config.planOpenOrders).toEqual({ free: 1, pro: 7 });
    expect(config.rateLimitPlans).toEqual({ free: { perMinute: 5 }, pro: {} });
  });

  it('reads RATE_LIMIT_PLANS as the numbers it gives, by plan name (the plan table is built in auth)', () => {
    const config = loadConfig({ RATE_LIMIT_PLANS: '{"free":{"perMinute":5,"perDay":8},"pro":{"perDay":20},"business":null}' });
    expect(config.rateLimitPlans).toEqual({ free: { perMinute: 5, perDay: 8 }, pro: { perDay: 20 }, business: {} });
  });

  it.each([
    [{ PORT: 'abc' }, /^Invalid configuration: PORT: /],
    [{ PORT: '70000' }, /PORT/],
    [{ DATABASE_URL: 'postgres://x' }, /DATABASE_URL/],
    [{ APP_ENV: 'prod' }, /APP_ENV/],
    [{ REDIS_URL: 'localhost:6379' }, /REDIS_URL/],
    [{ BODY_LIMIT_BYTES: '12kb' }, /BODY_LIMIT_BYTES/],
    [{ REDIS_CLUSTER_NODES: 'redis-a' }, /^Invalid configuration: REDIS_CLUSTER_NODES: must be host:port,host:port/],
    [{ REDIS_CLUSTER_NODES: '10.0.0.1:7000,10.0.0.2:70000' }, /REDIS_CLUSTER_NODES: must be host:port/],
    [{ REDIS_CLUSTER_NODES: 'redis://a:7000' }, /REDIS_CLUSTER_NODES: must be host:port/],
    [{ REDIS_CLUSTER_NODES: 'a:7000', REDIS_URL: 'redis://b:6379' }, /REDIS_CLUSTER_NODES: set either REDIS_URL .* not both/],
    [{ IDEMPOTENCY_TTL_SECONDS: '0' }, /IDEMPOTENCY_TTL_SECONDS: must be an integer of at least 1/],
    [{ ORDER_HOLD_SECONDS: '0' }, /^Invalid configuration: ORDER_HOLD_SECONDS: must be an integer of at least 1$/],
    [{ ORDER_HOLD_SECONDS: '30m' }, /ORDER_HOLD_SECONDS/],
    [{ RATE_LIMIT_PLANS: '{"free":{"openOrders":0}}' }, /RATE_LIMIT_PLANS: plan "free" needs positive integers perMinute, perDay, concurrency and openOrders/],
    [{ HEADERS_TIMEOUT_MS: '0' }, /^Invalid configuration: HEADERS_TIMEOUT_MS: must be an integer of at least 1$/],
    [{ REQUEST_TIMEOUT_MS: '5000' }, /^Invalid configuration: REQUEST_TIMEOUT_MS: must be at least HEADERS_TIMEOUT_MS/],
    [{ HEADERS_TIMEOUT_MS: '2000', REQUEST_TIMEOUT_MS: '1000' }, /REQUEST_TIMEOUT_MS: must be at least HEADERS_TIMEOUT_MS/],
    [{ MAX_EVENT_LOOP_DELAY_MS: '-1' }, /^Invalid configuration: MAX_EVENT_LOOP_DELAY_MS: must be an integer of at least 0$/],
    [{ RATE_LIMIT_PLANS: '{"free":{"perMinute":0}}' }, /RATE_LIMIT_PLANS/],
    [{ RATE_LIMIT_PLANS: '{"free":{"perDay":"8"}}' }, /RATE_LIMIT_PLANS: plan "free" needs positive integers/],
    [{ RATE_LIMIT_PLANS: 'nope' }, /RATE_LIMIT_PLANS: is not valid JSON/],
    [{ PUBLIC_BASE_URL: 'https://api.example.com' }, /PUBLIC_BASE_URL/],
    [{ APP_ENV: 'production' }, /ALLOW_SQLITE_IN_PRODUCTION/],
    [{ DATABASE_REPLICA_URLS: 'mysql://r@replica:3306/store' }, /^Invalid configuration: DATABASE_REPLICA_URLS: read replicas need a MySQL or MariaDB DATABASE_URL$/],
    [{ DATABASE_URL: 'mysql://u@db/store', DATABASE_REPLICA_URLS: 'replica:3306' }, /^Invalid configuration: DATABASE_REPLICA_URLS: must be mysql:\/\//],
    [{ DATABASE_URL: 'mysql://u@db/store', DATABASE_REPLICA_URLS: 'mysql://r@a/store,sqlite:./b.db' }, /DATABASE_REPLICA_URLS: must be mysql:\/\//],
    [{ DATABASE_REPLICA_MAX_LAG_SECONDS: '0' }, /^Invalid configuration: DATABASE_REPLICA_MAX_LAG_SECONDS: must be an integer from 1 to 86400$/],
    [{ DATABASE_ACQUIRE_TIMEOUT_MS: '2s' }, /^Invalid configuration: DATABASE_ACQUIRE_TIMEOUT_MS: must be an integer from 100 to 60000$/],
    [{ DATABASE_STATEMENT_TIMEOUT_MS: '0' }, /^Invalid configuration: DATABASE_STATEMENT_TIMEOUT_MS: must be an integer from 100 to 3600000$/],
    [{ LOG_FORMAT: 'text' }, /^Invalid configuration: LOG_FORMAT: must be json or pretty$/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, /^Invalid configuration: OTEL_EXPORTER_OTLP_ENDPOINT: must be an http\(s\) URL/],
    [{ DATABASE_URL: 'mysql://u:secret@db:3306' }, /^Invalid configuration: DATABASE_URL: names no database; add it after the address, as in mysql:\/\/user:pass@host:3306\/animal_store$/],
    [{ DATABASE_URL: 'mysql://u:secret@db:3306/' }, /^Invalid configuration: DATABASE_URL: names no database/],
    [{ DATABASE_URL: 'mariadb://u@db1:3306,db2:3306/store' }, /^Invalid configuration: DATABASE_URL: names several hosts/],
    [{ CORS_ORIGINS: 'notaurl' }, /^Invalid configuration: CORS_ORIGINS: must list origins as a browser sends them, .*; "notaurl" is not one$/],
    [{ CORS_ORIGINS: 'https://shop.example, https://shop.example/app' }, /CORS_ORIGINS: .*"https:\/\/shop.example\/app" is not one$/],
    [{ CORS_ORIGINS: 'https://shop.example/' }, /CORS_ORIGINS: .*"https:\/\/shop.example\/" is not one$/],
    [{ CORS_ORIGINS: 'ftp://files.example' }, /CORS_ORIGINS: /],
  ])('stops on %p with one line naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
    try {
      loadConfig(env);
    } catch (error) {
      expect((error as Error).message).not.toContain('\n');
    }
  });

  it('reads REDIS_CLUSTER_NODES as seed nodes', () => {
    expect(loadConfig({ REDIS_CLUSTER_NODES: 'redis-a:7000, 10.0.0.2:7001' }).redisClusterNodes).toEqual([
      { host: 'redis-a', port: 7000 },
      { host: '10.0.0.2', port: 7001 },
    ]);
    expect(loadConfig({}).redisClusterNodes).toBeUndefined();
  });

  it('reads DATABASE_REPLICA_URLS as a list of MySQL or MariaDB URLs beside a MySQL primary, with a lag bound of 5 s by default', () => {
    const config = loadConfig({
      DATABASE_URL: 'mariadb://u:p@db:3306/store',
      DATABASE_REPLICA_URLS: 'mysql://r:p@replica-1:3306/store, mariadb://r:p@replica-2:3306/store',
    });
    expect(config.databaseReplicaUrls).toEqual(['mysql://r:p@replica-1:3306/store', 'mariadb://r:p@replica-2:3306/store']);
    expect(config.databaseReplicaMaxLagSeconds).toBe(5);
    expect(loadConfig({}).databaseReplicaUrls).toEqual([]);
    expect(loadConfig({ DATABASE_REPLICA_MAX_LAG_SECONDS: '30' }).databaseReplicaMaxLagSeconds).toBe(30);
  });

  it('leaves the log format to the terminal unless LOG_FORMAT names one, and traces only with an OTLP endpoint', () => {
    expect(loadConfig({}).logFormat).toBeUndefined();
    expect(loadConfig({ LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(loadConfig({ LOG_FORMAT: 'json' }).logFormat).toBe('json');
    expect(loadConfig({}).tracing).toBe(false);
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).tracing).toBe(true);
  });

  it('runs production on the embedded store only when explicitly allowed', () => {
    const base = { PUBLIC_BASE_URL: 'https://api.example.com/v1' };
    expect(loadConfig({ ...base, APP_ENV: 'production', ALLOW_SQLITE_IN_PRODUCTION: 'true' }).appEnv).toBe('production');
    expect(loadConfig({ ...base, APP_ENV: 'production', DATABASE_URL: 'mysql://u:p@db:3306/store' }).appEnv).toBe('production');
  });

  it("writes links on its own environment's base URL, which staging and production must set", () => {
    const bases = { PUBLIC_BASE_URL: 'https://api.example.com/v1', STAGING_BASE_URL: 'https://staging.example.com/v1' };
    const production = { ...bases, DATABASE_URL: 'mysql://u:p@db:3306/store', APP_ENV: 'production' };
    expect(loadConfig(production).ownBaseUrl).toBe('https://api.example.com/v1');
    expect(loadConfig({ ...bases, APP_ENV: 'staging' }).ownBaseUrl).toBe('https://staging.example.com/v1');
    expect(loadConfig({ ...bases, APP_ENV: 'test' }).ownBaseUrl).toBe('https://api.example.com/v1');
    expect(loadConfig({}).ownBaseUrl).toBe('http://localhost:3000/v1');
    expect(() => loadConfig({ ...production, PUBLIC_BASE_URL: '' })).toThrow(/^Invalid configuration: PUBLIC_BASE_URL: production writes its links with it; /);
    expect(() => loadConfig({ PUBLIC_BASE_URL: bases.PUBLIC_BASE_URL, APP_ENV: 'staging' })).toThrow(/^Invalid configuration: STAGING_BASE_URL: staging /);
  });

  it('reads TRUST_PROXY as the proxies it names, and refuses true, a hop count or a name', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.5, 10.1.0.0/16,fd00::/8, loopback' }).trustProxy).toEqual(['10.0.0.5', '10.1.0.0/16', 'fd00::/8', 'loopback']);
    for (const value of ['true', '1', 'proxy', '10.0.0.0/33', '10.0.0.5/8/1', 'fd00::/129']) {
      expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(/^Invalid configuration: TRUST_PROXY: .*; set the addresses or CIDR ranges of the proxies in front, e\.g\. 10\.0\.0\.5,10\.1\.0\.0\/16$/);
    }
  });

  it('serves the operators\' endpoints on OPS_PORT when set', () => {
    expect(loadConfig({}).opsPort).toBeUndefined();
    expect(loadConfig({ OPS_PORT: '9100' }).opsPort).toBe(9100);
    expect(() => loadConfig({ OPS_PORT: 'x' })).toThrow(/^Invalid configuration: OPS_PORT: /);
  });
});

describe('DATABASE_URL naming several hosts', () => {
  it.each(['mysql://store:s%40cret@db1:3306,db2:3307,db3/animal_store', 'mariadb://u:secret@10.0.0.1,[::1]:3310/db'])(
    'refuses %s at start, in one line that points at a proxy and never names the password',
    (url) => {
      const load = () => loadConfig({ DATABASE_URL: url });
      expect(load).toThrow(ConfigError);
      expect(load).toThrow(/^Invalid configuration: DATABASE_URL: names several hosts; give one address, such as a proxy/);
      try {
        load();
      } catch (error) {
        expect((error as Error).message).not.toMatch(/s%40cret|secret/);
        expect((error as Error).message).not.toContain('\n');
      }
    },
  );

  it('takes one address, a comma in the password included', () => {
    expect(loadConfig({ DATABASE_URL: 'mysql://u:a,b@proxy:3306/store' }).databaseUrl).toBe('mysql://u:a,b@proxy:3306/store');
  });

  it('keeps each read replica to one server: DATABASE_REPLICA_URLS is split at its commas', () => {
    expect(() => loadConfig({ DATABASE_URL: 'mysql://u:p@db1/store', DATABASE_REPLICA_URLS: 'mysql://r:p@r1:3306,r2:3306/store' })).toThrow(
      /^Invalid configuration: DATABASE_REPLICA_URLS: must be mysql:/,
    );
    expect(loadConfig({ DATABASE_URL: 'mysql://u:p@db1/store', DATABASE_REPLICA_URLS: 'mysql://r:p@r1:3306/store' }).databaseReplicaUrls).toEqual([
      'mysql://r:p@r1:3306/store',
    ]);
  });
});
