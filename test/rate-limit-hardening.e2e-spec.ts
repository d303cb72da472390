import { describeOnStore } from './support/describe-store';
import { rateLimitHardeningScenarios } from './support/rate-limit-hardening';

describeOnStore('rate limits at their edges, counters in memory', () => {
  rateLimitHardeningScenarios({ redis: false });
});
