import { invalidConfiguration, type RateLimitPlanOverrides } from '../../config/app-config';
import { DEFAULT_PLAN_LIMITS, isPlan, type Plan, type PlanLimits } from '../domain/plan';

/**
 * The limits of every plan: the specification's table with the rows
 * RATE_LIMIT_PLANS overrides. AuthModule builds the one instance at start.
 */
export class PlanTable {
  private constructor(private readonly rows: Readonly<Record<Plan, PlanLimits>>) {}

  /** A name that is no plan stops the start with one line naming the variable. */
  static fromOverrides(overrides: RateLimitPlanOverrides): PlanTable {
    const rows: Record<Plan, PlanLimits> = { ...DEFAULT_PLAN_LIMITS };
    for (const [plan, limits] of Object.entries(overrides)) {
      if (!isPlan(plan)) throw invalidConfiguration('RATE_LIMIT_PLANS', `unknown plan "${plan}"`);
      rows[plan] = { ...DEFAULT_PLAN_LIMITS[plan], ...limits };
    }
    return new PlanTable(rows);
  }

  limitsOf(plan: Plan): PlanLimits {
    return this.rows[plan];
  }
}
