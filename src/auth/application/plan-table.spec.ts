import { ConfigError, loadConfig } from '../../config/app-config';
import { PlanTable } from './plan-table';

const tableFor = (RATE_LIMIT_PLANS?: string) => PlanTable.fromOverrides(loadConfig(RATE_LIMIT_PLANS ? { RATE_LIMIT_PLANS } : {}).rateLimitPlans);

describe('PlanTable', () => {
  it('is the specification table when RATE_LIMIT_PLANS is not set', () => {
    const table = tableFor();
    expect(table.limitsOf('free')).toEqual({ perMinute: 60, perDay: 1000 });
    expect(table.limitsOf('business')).toEqual({ perMinute: 1000, perDay: 100000 });
  });

  it('overrides only the plans RATE_LIMIT_PLANS names', () => {
    const table = tableFor('{"free":{"perMinute":5,"perDay":8},"pro":{"perDay":20}}');
    expect(table.limitsOf('free')).toEqual({ perMinute: 5, perDay: 8 });
    expect(table.limitsOf('pro')).toEqual({ perMinute: 300, perDay: 20 });
    expect(table.limitsOf('business')).toEqual({ perMinute: 1000, perDay: 100000 });
  });

  it('stops on a name that is no plan with one line naming the variable', () => {
    const unknown = () => tableFor('{"gold":{"perMinute":1,"perDay":1}}');
    expect(unknown).toThrow(ConfigError);
    expect(unknown).toThrow(/^Invalid configuration: RATE_LIMIT_PLANS: unknown plan "gold"$/);
  });
});
