import { rateLimitHardeningScenarios } from './support/rate-limit-hardening';
import { reachableStores } from './support/test-database';
import { describeWithRedis } from './support/test-redis';

describeWithRedis('rate limits at their edges, counters in Redis', () => {
  for (const store of reachableStores()) {
    describe(`[${store}]`, () => rateLimitHardeningScenarios({ store, redis: true }));
  }
});
