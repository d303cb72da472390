import { invalidConfiguration, type RateLimitPlanOverrides } from '../../config/app-config';
import { DEFAULT_PLAN_LIMITS, isPlan, type Plan, type PlanLimits } from '../domain/plan';

export type PlanTable = Readonly<Record<Plan, PlanLimits>>;

/**
 * The specification's table with the rows RATE_LIMIT_PLANS overrides. Built
 * once at start; a name that is no plan stops the start with one line.
 */
export function planTable(overrides: RateLimitPlanOverrides): PlanTable {
  const table: Record<Plan, PlanLimits> = { ...DEFAULT_PLAN_LIMITS };
  for (const [plan, limits] of Object.entries(overrides)) {
    if (!isPlan(plan)) throw invalidConfiguration('RATE_LIMIT_PLANS', `unknown plan "${plan}"`);
    table[plan] = { ...DEFAULT_PLAN_LIMITS[plan], ...limits };
  }
  return table;
}
