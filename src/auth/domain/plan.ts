/** The requests a plan allows per window; the caller a key names carries its account's. */
export interface PlanLimits {
  readonly perMinute: number;
  readonly perDay: number;
}

export const PLANS = ['free', 'pro', 'business', 'enterprise'] as const;

export type Plan = (typeof PLANS)[number];

export function isPlan(value: unknown): value is Plan {
  return typeof value === 'string' && (PLANS as readonly string[]).includes(value);
}

/** The specification's table (section 8). Enterprise keys normally carry their own numbers. */
export const DEFAULT_PLAN_LIMITS: Readonly<Record<Plan, PlanLimits>> = {
  free: { perMinute: 60, perDay: 1_000 },
  pro: { perMinute: 300, perDay: 10_000 },
  business: { perMinute: 1_000, perDay: 100_000 },
  enterprise: { perMinute: 1_000, perDay: 100_000 },
};
