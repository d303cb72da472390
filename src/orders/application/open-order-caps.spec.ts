import { loadConfig } from '../../config/app-config';
import { OpenOrderCaps } from './open-order-caps';

describe('OpenOrderCaps', () => {
  it('gives each plan its number of placed orders: free 5, pro 50, business 500, enterprise 5,000', () => {
    const caps = new OpenOrderCaps(loadConfig({}));
    expect(['free', 'pro', 'business', 'enterprise'].map((plan) => caps.capOf(plan))).toEqual([5, 50, 500, 5_000]);
  });

  it("takes RATE_LIMIT_PLANS' openOrders over a plan's, leaving the others", () => {
    const caps = new OpenOrderCaps(loadConfig({ RATE_LIMIT_PLANS: '{"pro":{"openOrders":2}}' }));
    expect(['free', 'pro', 'business'].map((plan) => caps.capOf(plan))).toEqual([5, 2, 500]);
  });
});
