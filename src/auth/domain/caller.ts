import type { PlanLimits } from './plan';

/** Who sends a request with an active API key, and the limits that apply to it. */
export interface Caller {
  readonly keyId: number;
  /** The key's account, whose keys share one quota. */
  readonly accountId: number;
  readonly limits: PlanLimits;
}
